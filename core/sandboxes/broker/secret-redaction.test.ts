import { describe, expect, it } from "vitest";
import {
  createRedactor,
  minimumEncodedSecretBytes,
  redactSecrets,
  stableBase64,
} from "./secret-redaction.ts";

const secret = "ghp_S3cr3t/Value+with=odd~bytes ✓";
const secretBytes = new TextEncoder().encode(secret);

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
const toUrlAlphabet = (text: string) => text.replaceAll("+", "-").replaceAll("/", "_");
const hexOf = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");

/** A file of other bytes with the secret `offset` bytes in, as a contents API would encode it. */
function blobWith(offset: number): Uint8Array {
  const before = new TextEncoder().encode("# config file\n".repeat(10)).subarray(0, offset);
  const after = new TextEncoder().encode("\nmore text after the value\n");
  const blob = new Uint8Array(before.length + secretBytes.length + after.length);
  blob.set(before);
  blob.set(secretBytes, before.length);
  blob.set(after, before.length + secretBytes.length);
  return blob;
}

function wrap(text: string, width: number, lineBreak: string): string {
  const lines: string[] = [];
  for (let index = 0; index < text.length; index += width) lines.push(text.slice(index, index + width));
  return lines.join(lineBreak);
}

describe("redactSecrets: base64", () => {
  it.each([0, 1, 2, 3, 4, 5])(
    "redacts the whole blob holding the value %i bytes in, in both alphabets",
    (offset) => {
      const standard = base64Of(blobWith(offset));
      for (const encoded of [standard, standard.replace(/=+$/, ""), toUrlAlphabet(standard)]) {
        expect(redactSecrets(`{"content":"${encoded}","sha":"abc"}`, [secret])).toBe(
          '{"content":"[REDACTED]","sha":"abc"}',
        );
      }
    },
  );

  it("redacts the value's own encoding with and without padding", () => {
    for (const value of ["five!", "sixsix", "seven77", "a longer token value"]) {
      const encoded = btoa(value);
      for (const form of [encoded, encoded.replace(/=+$/, ""), toUrlAlphabet(encoded)]) {
        expect(redactSecrets(`Basic ${form} end`, [value])).toBe("Basic [REDACTED] end");
      }
    }
  });

  it("covers every alignment: the stable characters of each offset are what a blob holds", () => {
    for (let offset = 0; offset < 3; offset++) {
      const blob = base64Of(blobWith(offset + 3));
      expect(blob).toContain(stableBase64(secretBytes, offset));
      expect(stableBase64(secretBytes, offset).length).toBeGreaterThanOrEqual(
        Math.floor((secretBytes.length * 4) / 3) - 2,
      );
    }
  });

  it.each([
    [60, "\n"],
    [76, "\n"],
    [76, "\r\n"],
  ])("redacts a blob wrapped every %i characters", (width, lineBreak) => {
    for (let offset = 0; offset < 3; offset++) {
      const wrapped = wrap(base64Of(blobWith(offset + 30)), width, lineBreak);
      expect(redactSecrets(`content:\n${wrapped}\n.end`, [secret])).toBe("content:\n[REDACTED]\n.end");
      // The same blob inside a JSON string: the line breaks arrive as the two characters `\n`.
      const json = JSON.stringify({ content: `${wrapped}\n`, encoding: "base64" });
      expect(JSON.parse(redactSecrets(json, [secret]))).toEqual({
        content: "[REDACTED]\n",
        encoding: "base64",
      });
    }
  });

  it("redacts a blob escaped once more (`\\/` in JSON, %2B and %2F in a URL)", () => {
    const value = "\u00ff\u00fe secret with high bytes \u00fb\u00ff";
    const encoded = base64Of(new TextEncoder().encode(value));
    expect(encoded).toMatch(/[+/]/);
    expect(redactSecrets(`"${encoded.replaceAll("/", "\\/")}"`, [value])).toBe('"[REDACTED]"');
    expect(redactSecrets(`q=${encodeURIComponent(encoded)}&x=1`, [value])).toBe("q=[REDACTED]&x=1");
    // .NET's default JSON encoder writes + as \u002B.
    const dotnet = encoded.replaceAll("+", "\\u002B").replaceAll("/", "\\u002f");
    expect(redactSecrets(`{"v":"${dotnet}"}`, [value])).toBe('{"v":"[REDACTED]"}');
  });
});

describe("redactSecrets: textual forms", () => {
  it("redacts the value form-encoded and JSON-escaped as ASCII-only encoders write it", () => {
    const value = "pässwörd with spaces & 😀 (x)";
    const python = JSON.stringify(value)
      .slice(1, -1)
      .replace(
        /[\u0080-\uffff]/g,
        (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
      );
    expect(python).toContain("\\u00e4");
    for (const form of [
      new URLSearchParams({ v: value }).toString().slice(2),
      python,
      python.replace(/\\u[0-9a-f]{4}/g, (sequence) => `\\u${sequence.slice(2).toUpperCase()}`),
    ]) {
      expect(redactSecrets(`<${form}>`, [value])).toBe("<[REDACTED]>");
    }
  });
});

// The value from the report of what was missed, and the same with the characters encoders disagree on.
const reported = 'Zq9-Sec/ret+Val ue_42"x';
const withSubDelimiters = `${reported}!'()*~`;

describe("redactSecrets: URL encodings", () => {
  const expectRedactedInBodyAndCookie = (value: string, encoded: string) => {
    const redact = createRedactor([value]);
    expect(redact(`{"echo":"token=${encoded}&next=1"}`)).toBe('{"echo":"token=[REDACTED]&next=1"}');
    expect(redact(`session=${encoded}; Path=/; HttpOnly`)).toBe("session=[REDACTED]; Path=/; HttpOnly");
  };

  // Python's forms as urllib.parse writes them, .NET's as HttpUtility.UrlEncode does (lower-case hex).
  it.each([
    ["Python's quote() leaves it (`/` unescaped)", reported, "Zq9-Sec/ret%2BVal%20ue_42%22x"],
    ["encodeURI leaves it (`/` and `+` unescaped)", reported, encodeURI(reported)],
    [
      "Python's quote(safe='') and RFC 3986 write it (`!'()*` escaped too)",
      withSubDelimiters,
      "Zq9-Sec%2Fret%2BVal%20ue_42%22x%21%27%28%29%2A~",
    ],
    ["Python's quote_plus(safe='/') writes it", reported, "Zq9-Sec/ret%2BVal+ue_42%22x"],
    [".NET's HttpUtility.UrlEncode writes it (lower-case hex)", reported, "Zq9-Sec%2fret%2bVal+ue_42%22x"],
    [
      "lower-case hex writes it, UTF-8 bytes too",
      `${reported} ü✓`,
      "Zq9-Sec/ret%2bVal%20ue_42%22x%20%c3%bc%e2%9c%93",
    ],
    ["a form decoder the wrong way round echoes it (its space as `+`)", reported, 'Zq9-Sec/ret+Val+ue_42"x'],
    [
      "a URL-encoded JSON string holds it",
      reported,
      encodeURIComponent(JSON.stringify(reported).slice(1, -1)),
    ],
  ])("redacts a secret percent-encoded as %s, in the body and in Set-Cookie", (_, value, encoded) => {
    expectRedactedInBodyAndCookie(value, encoded);
  });

  // Matched one pattern per encoder before; the decoding that replaced those patterns must keep them.
  it.each([
    ["encodeURIComponent and Python's quote(safe='')", reported, "Zq9-Sec%2Fret%2BVal%20ue_42%22x"],
    ["Python's quote_plus()", reported, "Zq9-Sec%2Fret%2BVal+ue_42%22x"],
    [
      "URLSearchParams (`*` kept, `~` escaped)",
      withSubDelimiters,
      new URLSearchParams({ v: withSubDelimiters }).toString().slice(2),
    ],
    ["encodeURIComponent, a value holding `%`", "100%25 (a+)+$ .*", encodeURIComponent("100%25 (a+)+$ .*")],
  ])("still redacts a secret encoded by %s, in the body and in Set-Cookie", (_, value, encoded) => {
    expectRedactedInBodyAndCookie(value, encoded);
  });

  it("redacts the start of a URL-encoded secret left at the end of a body cut mid-escape", () => {
    for (const cut of ["Zq9-Sec/ret%2", "Zq9-Sec%2fret%2bV", "Zq9-Sec%2Fret%2BVal+"]) {
      expect(redactSecrets(`q=${cut}`, [reported], { cutAtEnd: true })).toBe("q=[REDACTED]");
      // Not cut: the same text is left alone.
      expect(redactSecrets(`q=${cut}`, [reported])).toBe(`q=${cut}`);
    }
  });
});

describe("redactSecrets: hex", () => {
  it("redacts lower, upper and mixed case, inside a longer hex string too", () => {
    const hex = hexOf(secretBytes);
    for (const form of [hex, hex.toUpperCase(), hex.slice(0, 10) + hex.slice(10).toUpperCase()]) {
      expect(redactSecrets(`sum=${form};`, [secret])).toBe("sum=[REDACTED];");
      expect(redactSecrets(`0x00ff${form}ff00`, [secret])).toBe("0x00ff[REDACTED]ff00");
    }
  });
});

describe("redactSecrets: what it leaves alone", () => {
  it("leaves an unrelated body unchanged, base64 and hex included", () => {
    const other = new TextEncoder().encode("unrelated file content, no value here\n".repeat(20));
    const body = JSON.stringify({
      content: wrap(base64Of(other), 60, "\n"),
      hex: hexOf(other).toUpperCase(),
      text: "plain words, a=b&c=d, path/to/file_name-1, 100%2Fdone\\n",
    });
    expect(redactSecrets(body, [secret, "another-secret-value"])).toBe(body);
  });

  it("leaves a URL-encoded near miss alone", () => {
    const body = "token=Zq9-Sec%2Fret%2BVal%20ue_43%22x&path=Zq9-Sec/ret+Val+ue_42";
    expect(redactSecrets(body, [reported])).toBe(body);
  });

  it(`redacts a secret under ${minimumEncodedSecretBytes} bytes only as itself`, () => {
    const short = "pw12";
    expect(redactSecrets(`${short} ${btoa(short)} ${hexOf(new TextEncoder().encode(short))}`, [short])).toBe(
      `[REDACTED] ${btoa(short)} 70773132`,
    );
  });

  it("finishes on inputs built to make a naive search backtrack", () => {
    const value = `${"a".repeat(4000)}b`;
    const body = "a".repeat(1024 * 1024);
    expect(redactSecrets(body, [value])).toBe(body);
    expect(redactSecrets(`${body}b`, [value], { cutAtEnd: true })).toBe(
      `${"a".repeat(1024 * 1024 - 4000)}[REDACTED]`,
    );
    // The same, percent-encoded: `%61` is `a`.
    const encoded = "%61".repeat(300_000);
    expect(redactSecrets(encoded, [value])).toBe(encoded);
    expect(redactSecrets(`${encoded}%62`, [value], { cutAtEnd: true })).toBe(
      `${"%61".repeat(300_000 - 4000)}[REDACTED]`,
    );
  });
});

describe("redactSecrets: a body cut at the cap", () => {
  it("redacts the start of a value's base64 or hex left at the end, and only what carries its bits", () => {
    for (const offset of [6, 7, 8]) {
      const blob = base64Of(blobWith(offset));
      const cutInside = blob.slice(0, Math.ceil((offset * 8) / 6) + 12);
      // The characters left carry the bytes before the value and none of its bits.
      const untouched = blob.slice(0, Math.floor((offset * 8) / 6));
      expect(redactSecrets(`{"content":"${cutInside}`, [secret], { cutAtEnd: true })).toBe(
        `{"content":"${untouched}[REDACTED]`,
      );
    }
    const hex = hexOf(secretBytes);
    expect(redactSecrets(`hex=${hex.slice(0, 9)}`, [secret], { cutAtEnd: true })).toBe("hex=[REDACTED]");
    // Not cut: the same text is left alone.
    expect(redactSecrets(`hex=${hex.slice(0, 9)}`, [secret])).toBe(`hex=${hex.slice(0, 9)}`);
  });
});
