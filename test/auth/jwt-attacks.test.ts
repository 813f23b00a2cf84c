/** Forged, altered and out-of-policy dashboard tokens are all 401 invalid_token. */
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenAudience, tokenIssuer } from "../../core/index.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

const secret = new TextEncoder().encode("test-secret-test-secret-test-secret-0123456789");

describe("dashboard token attacks", () => {
  let test: TestPlatform;
  let accountId: string;
  let email: string;
  let validToken: string;

  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    ({ accountId, email, token: validToken } = await createAccountWithKey(test));
  });
  afterAll(() => test.close());

  const now = () => Math.floor(Date.now() / 1000);

  function claims(overrides: Record<string, unknown> = {}) {
    return new SignJWT({ email, typ: "dashboard", ...overrides })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(accountId)
      .setIssuer(tokenIssuer)
      .setAudience(tokenAudience)
      .setIssuedAt(now());
  }

  const attacks: Record<string, () => Promise<string>> = {
    "alg none": async () =>
      new UnsecuredJWT({ email, typ: "dashboard" })
        .setSubject(accountId)
        .setIssuer(tokenIssuer)
        .setAudience(tokenAudience)
        .setIssuedAt(now())
        .setExpirationTime(now() + 600)
        .encode(),
    "RS256 instead of HS256 (algorithm confusion)": async () => {
      const { privateKey } = await generateKeyPair("RS256");
      return new SignJWT({ email, typ: "dashboard" })
        .setProtectedHeader({ alg: "RS256" })
        .setSubject(accountId)
        .setIssuer(tokenIssuer)
        .setAudience(tokenAudience)
        .setIssuedAt(now())
        .setExpirationTime(now() + 600)
        .sign(privateKey);
    },
    "HS512 with the right secret": async () =>
      new SignJWT({ email, typ: "dashboard" })
        .setProtectedHeader({ alg: "HS512" })
        .setSubject(accountId)
        .setIssuer(tokenIssuer)
        .setAudience(tokenAudience)
        .setIssuedAt(now())
        .setExpirationTime(now() + 600)
        .sign(new TextEncoder().encode("test-secret-test-secret-test-secret-0123456789".repeat(2))),
    "tampered signature": async () => {
      const [head, body, signature] = validToken.split(".");
      const flipped = signature[0] === "A" ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
      return `${head}.${body}.${flipped}`;
    },
    "tampered payload": async () => {
      const [head, , signature] = validToken.split(".");
      const body = Buffer.from(JSON.stringify({ sub: crypto.randomUUID(), typ: "dashboard" })).toString(
        "base64url",
      );
      return `${head}.${body}.${signature}`;
    },
    "wrong secret": async () =>
      claims()
        .setExpirationTime(now() + 600)
        .sign(new TextEncoder().encode("another-secret-another-secret-another-secret")),
    expired: async () =>
      claims()
        .setIssuedAt(now() - 4000)
        .setExpirationTime(now() - 60)
        .sign(secret),
    "not yet valid (future nbf)": async () =>
      claims()
        .setNotBefore(now() + 3600)
        .setExpirationTime(now() + 7200)
        .sign(secret),
    "wrong issuer": async () =>
      claims()
        .setIssuer("someone-else")
        .setExpirationTime(now() + 600)
        .sign(secret),
    "wrong audience": async () =>
      claims()
        .setAudience("another-service")
        .setExpirationTime(now() + 600)
        .sign(secret),
    "wrong typ": async () =>
      claims({ typ: "refresh" })
        .setExpirationTime(now() + 600)
        .sign(secret),
    "missing exp": async () => claims().sign(secret),
    "unknown account": async () =>
      claims()
        .setSubject(crypto.randomUUID())
        .setExpirationTime(now() + 600)
        .sign(secret),
    "not a JWT at all": async () => "definitely.not.a-token",
  };

  for (const [name, forge] of Object.entries(attacks)) {
    it(`refuses ${name}`, async () => {
      const response = await test.request("/v1/api-keys", { credential: await forge() });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
    });
  }

  it("accepts the genuine token (the attacks above fail for their flaw, not for a broken set-up)", async () => {
    expect((await test.request("/v1/api-keys", { credential: validToken })).status).toBe(200);
    expect(
      (
        await test.request("/v1/api-keys", {
          credential: await claims()
            .setExpirationTime(now() + 600)
            .sign(secret),
        })
      ).status,
    ).toBe(200);
  });
});
