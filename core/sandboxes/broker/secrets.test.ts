import { describe, expect, it } from "vitest";
import { ServiceError } from "../../errors.ts";
import { createSecretCipher, type GrantedSecret, redactSecrets, substituteSecrets } from "./secrets.ts";

describe("createSecretCipher", () => {
  const cipher = createSecretCipher("a configured SVC_SECRETS_KEY value");
  const plaintext = "sk-live-1234567890abcdef";

  it("round-trips a value, including non-ASCII text", async () => {
    expect(await cipher.decrypt(await cipher.encrypt(plaintext))).toBe(plaintext);
    expect(await cipher.decrypt(await cipher.encrypt("pässwörd ✓"))).toBe("pässwörd ✓");
  });

  it("writes a versioned string that never contains the plaintext", async () => {
    const stored = await cipher.encrypt(plaintext);
    expect(stored).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(plaintext);
    expect(stored).not.toContain(btoa(plaintext).slice(0, 12));
  });

  it("uses a fresh nonce for every value", async () => {
    const first = await cipher.encrypt(plaintext);
    const second = await cipher.encrypt(plaintext);
    expect(first.split(".")[1]).not.toBe(second.split(".")[1]);
    expect(first).not.toBe(second);
  });

  it("fails on tampered ciphertext or nonce", async () => {
    const stored = await cipher.encrypt(plaintext);
    const [version, nonce, ciphertext] = stored.split(".");
    const flip = (text: string): string => (text[0] === "A" ? "B" : "A") + text.slice(1);
    await expect(cipher.decrypt(`${version}.${nonce}.${flip(ciphertext)}`)).rejects.toThrow(
      "could not be decrypted",
    );
    await expect(cipher.decrypt(`${version}.${flip(nonce)}.${ciphertext}`)).rejects.toThrow(
      "could not be decrypted",
    );
    await expect(cipher.decrypt(`v2.${nonce}.${ciphertext}`)).rejects.toThrow("unknown format");
    await expect(cipher.decrypt(`${version}.${nonce}`)).rejects.toThrow("unknown format");
  });

  it("fails with another key", async () => {
    const stored = await cipher.encrypt(plaintext);
    await expect(createSecretCipher("another key").decrypt(stored)).rejects.toThrow("could not be decrypted");
  });

  it("binds an optional context, so a value cannot be moved to another row", async () => {
    const stored = await cipher.encrypt(plaintext, "account-1/secret-a");
    expect(await cipher.decrypt(stored, "account-1/secret-a")).toBe(plaintext);
    await expect(cipher.decrypt(stored, "account-2/secret-a")).rejects.toThrow();
    await expect(cipher.decrypt(stored)).rejects.toThrow();
  });

  it("refuses an empty key", () => {
    expect(() => createSecretCipher("")).toThrow("SVC_SECRETS_KEY");
  });
});

describe("substituteSecrets", () => {
  const granted = new Map<string, GrantedSecret>([
    ["api_token", { value: "tok-123", allowedHosts: ["api.example.com"] }],
    ["other", { value: "{{secret:api_token}}", allowedHosts: ["API.EXAMPLE.COM."] }],
    ["elsewhere", { value: "x", allowedHosts: ["other.example.com"] }],
  ]);

  function errorOf(action: () => unknown): ServiceError {
    try {
      action();
    } catch (error) {
      if (error instanceof ServiceError) return error;
      throw error;
    }
    throw new Error("expected a ServiceError");
  }

  it("substitutes header values and the body for an allowed host", () => {
    const result = substituteSecrets(
      {
        url: "https://API.example.com:8443/v1?q={{secret:api_token}}",
        headers: { Authorization: "Bearer {{secret:api_token}}", "X-Plain": "none" },
        body: '{"token":"{{secret:api_token}}"}',
      },
      granted,
    );
    expect(result.headers).toEqual({ Authorization: "Bearer tok-123", "X-Plain": "none" });
    expect(result.body).toBe('{"token":"tok-123"}');
    expect(result.url).toBe("https://API.example.com:8443/v1?q={{secret:api_token}}");
    expect(result.usedSecretNames).toEqual(["api_token"]);
  });

  it("does not expand placeholders inside secret values", () => {
    const result = substituteSecrets(
      { url: "https://api.example.com", headers: {}, body: "{{secret:other}}" },
      granted,
    );
    expect(result.body).toBe("{{secret:api_token}}");
  });

  it("refuses a secret not granted with egress_denied", () => {
    const error = errorOf(() =>
      substituteSecrets(
        { url: "https://api.example.com", headers: { A: "{{secret:missing}}" }, body: null },
        granted,
      ),
    );
    expect(error.code).toBe("egress_denied");
  });

  it.each([
    "https://other.example.com",
    "https://sub.api.example.com",
    "https://example.com",
    "https://api.example.com.evil.io",
  ])("refuses a host outside allowed_hosts: %s", (url) => {
    const error = errorOf(() =>
      substituteSecrets({ url, headers: {}, body: "{{secret:api_token}}" }, granted),
    );
    expect(error.code).toBe("egress_denied");
    expect(error.message).not.toContain("tok-123");
  });

  it("leaves requests without placeholders alone", () => {
    const template = { url: "https://anywhere.example", headers: { A: "b" }, body: null };
    expect(substituteSecrets(template, new Map())).toEqual({ ...template, usedSecretNames: [] });
  });

  it.each(["not a url", "ftp://api.example.com/x", "file:///etc/passwd"])("refuses the url %j", (url) => {
    expect(errorOf(() => substituteSecrets({ url, headers: {}, body: null }, granted)).code).toBe(
      "validation_error",
    );
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence of every value", () => {
    expect(redactSecrets("a tok-123 b tok-123 c pw", ["tok-123", "pw"])).toBe(
      "a [REDACTED] b [REDACTED] c [REDACTED]",
    );
  });

  it("redacts the longer of overlapping values whole", () => {
    expect(redactSecrets("key=abcdef", ["abc", "abcdef"])).toBe("key=[REDACTED]");
  });

  it("redacts URL-encoded and JSON-escaped forms", () => {
    const value = 'p@ss "word"/x';
    const echoed = `q=${encodeURIComponent(value)} json=${JSON.stringify({ v: value })}`;
    const redacted = redactSecrets(echoed, [value]);
    expect(redacted).toBe('q=[REDACTED] json={"v":"[REDACTED]"}');
  });

  it("ignores empty values", () => {
    expect(redactSecrets("text", [""])).toBe("text");
  });
});

describe("keyed digests", () => {
  it("are stable per key, differ across keys and never contain the input", async () => {
    const first = createSecretCipher("first key of at least a few bytes");
    const second = createSecretCipher("second key of at least a few bytes");
    const digest = await first.digest("forgotten sentence");
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await first.digest("forgotten sentence")).toBe(digest);
    expect(await second.digest("forgotten sentence")).not.toBe(digest);
    expect(await first.digest("another sentence")).not.toBe(digest);
  });

  it("are HMAC-SHA256 under the HKDF key WebCrypto derives, so tombstones stored earlier still match", async () => {
    const key = "a configured SVC_SECRETS_KEY value";
    const encoder = new TextEncoder();
    const material = await crypto.subtle.importKey("raw", encoder.encode(key), "HKDF", false, ["deriveKey"]);
    const macKey = await crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: encoder.encode("cairn/secrets/v1"),
        info: encoder.encode("cairn keyed digests hmac-sha256"),
      },
      material,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
    for (const text of [`default\nfact\n${"ab".repeat(32)}`, "", "pässwörd ✓ ".repeat(500)]) {
      const expected = new Uint8Array(await crypto.subtle.sign("HMAC", macKey, encoder.encode(text)));
      expect(await createSecretCipher(key).digest(text)).toBe(Buffer.from(expected).toString("hex"));
    }
  });
});
