/**
 * What Cairn's OAuth authorization server refuses (issue 42), over raw HTTP: PKCE other than S256,
 * a wrong verifier, a redirect URI that is not exactly a registered one, another resource, a code
 * used twice or late, a refresh token used twice (the family ends), a consent form without its
 * CSRF token, unsafe registrations. On both stores, with a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pkceChallenge } from "../../core/index.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { approve, openConsentPage, redirectUrl, submitConsent } from "../support/oauth-browser.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

const origin = "http://127.0.0.1:8090";
const resource = `${origin}/mcp`;
const password = "correct horse battery";
const verifier = "v".repeat(20) + crypto.randomUUID().replaceAll("-", "");

interface Registration {
  status: number;
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  error?: string;
}

interface Tokens {
  access_token: string;
  refresh_token: string;
}

describe.each(storageTargets)("OAuth refusals on %s", (target) => {
  let test: TestPlatform;
  let appFetch: typeof fetch;
  const clock = createFakeClock(new Date());
  let account: Awaited<ReturnType<typeof createAccountWithKey>>;
  let clientId: string;

  beforeAll(async () => {
    test = await createTestPlatform(target, { clock, environment: { SVC_MCP_OAUTH_ENABLED: "true" } });
    appFetch = (input, init) => Promise.resolve(test.app.request(input as string, init));
    account = await createAccountWithKey(test);
    clientId = (await register({ client_name: "Refusals", redirect_uris: [redirectUrl] })).client_id;
  });
  afterAll(() => test?.close());

  async function register(metadata: unknown, ip = "198.51.100.1"): Promise<Registration> {
    const answer = await test.request("/oauth/register", { method: "POST", json: metadata, ip });
    return { ...((await answer.json()) as Omit<Registration, "status">), status: answer.status };
  }

  function authorizeUrl(overrides: Record<string, string | null> = {}) {
    const parameters: Record<string, string | null> = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUrl,
      code_challenge: pkceChallenge(verifier),
      code_challenge_method: "S256",
      resource,
      state: "s1",
      ...overrides,
    };
    const url = new URL(`${origin}/oauth/authorize`);
    for (const [name, value] of Object.entries(parameters))
      if (value !== null) url.searchParams.set(name, value);
    return url;
  }

  async function code(overrides: Record<string, string | null> = {}) {
    const back = await approve(appFetch, authorizeUrl(overrides), { email: account.email, password });
    return back.searchParams.get("code") as string;
  }

  async function token(fields: Record<string, string>) {
    const answer = await appFetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: clientId, ...fields }).toString(),
    });
    return { status: answer.status, body: (await answer.json()) as Tokens & { error?: string } };
  }

  const exchange = (theCode: string, overrides: Record<string, string> = {}) =>
    token({
      grant_type: "authorization_code",
      code: theCode,
      code_verifier: verifier,
      redirect_uri: redirectUrl,
      resource,
      ...overrides,
    });

  async function mcpStatus(accessToken: string) {
    const answer = await appFetch(`${origin}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    return answer.status;
  }

  /** The error an authorization request was sent back to the client with. */
  async function redirectedError(url: URL) {
    const answer = await appFetch(url, { redirect: "manual" });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location") as string);
    expect(location.origin + location.pathname).toBe(redirectUrl);
    expect(location.searchParams.get("state")).toBe("s1");
    return location.searchParams.get("error");
  }

  it("issues tokens for a proper exchange, which work at /mcp", async () => {
    const exchanged = await exchange(await code());
    expect(exchanged.status).toBe(200);
    expect(await mcpStatus(exchanged.body.access_token)).toBe(200);
  });

  it("refuses PKCE plain or missing, and any response_type but code, back at the client", async () => {
    expect(
      await redirectedError(authorizeUrl({ code_challenge_method: "plain", code_challenge: verifier })),
    ).toBe("invalid_request");
    expect(await redirectedError(authorizeUrl({ code_challenge: null, code_challenge_method: null }))).toBe(
      "invalid_request",
    );
    expect(await redirectedError(authorizeUrl({ code_challenge_method: null }))).toBe("invalid_request");
    expect(await redirectedError(authorizeUrl({ response_type: "token" }))).toBe("unsupported_response_type");
  });

  it("refuses another resource (RFC 8707) at the authorization and token endpoints", async () => {
    expect(await redirectedError(authorizeUrl({ resource: "https://elsewhere.example/mcp" }))).toBe(
      "invalid_target",
    );
    expect(await redirectedError(authorizeUrl({ resource: `${origin}/mcp/` }))).toBe("invalid_target");
    expect((await exchange(await code(), { resource: "https://elsewhere.example/mcp" })).body.error).toBe(
      "invalid_target",
    );
  });

  it("shows, never redirects to, a redirect URI that is not exactly a registered one", async () => {
    for (const redirect of [
      `${redirectUrl}/`,
      `${redirectUrl}?x=1`,
      "http://127.0.0.1:49153/callback",
      "https://evil.example/cb",
    ]) {
      const answer = await appFetch(authorizeUrl({ redirect_uri: redirect }), { redirect: "manual" });
      expect(answer.status).toBe(400);
      expect(answer.headers.get("location")).toBeNull();
      expect(await answer.text()).toContain("not one this client registered");
    }
    const unknownClient = await appFetch(authorizeUrl({ client_id: "nobody" }), { redirect: "manual" });
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.get("location")).toBeNull();
    expect((await exchange(await code(), { redirect_uri: `${redirectUrl}/` })).body.error).toBe(
      "invalid_grant",
    );
  });

  it("refuses a wrong or missing code_verifier", async () => {
    expect((await exchange(await code(), { code_verifier: "w".repeat(50) })).body.error).toBe(
      "invalid_grant",
    );
    const missing = await token({
      grant_type: "authorization_code",
      code: await code(),
      redirect_uri: redirectUrl,
    });
    expect(missing.body.error).toBe("invalid_request");
  });

  it("takes a code once; its second use also revokes what the first issued", async () => {
    const theCode = await code();
    const first = await exchange(theCode);
    expect(first.status).toBe(200);
    const second = await exchange(theCode);
    expect(second).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await mcpStatus(first.body.access_token)).toBe(401);
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: first.body.refresh_token })).body.error,
    ).toBe("invalid_grant");
  });

  it("refuses a code after its minute, and an access token after its hour", async () => {
    const late = await code();
    clock.advance(61_000);
    expect((await exchange(late)).body.error).toBe("invalid_grant");
    const fresh = await exchange(await code());
    expect(await mcpStatus(fresh.body.access_token)).toBe(200);
    clock.advance(3_601_000);
    expect(await mcpStatus(fresh.body.access_token)).toBe(401);
    // The refresh token outlives it.
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: fresh.body.refresh_token });
    expect(await mcpStatus(refreshed.body.access_token)).toBe(200);
  });

  it("rotates refresh tokens; a rotated one used again ends the whole family", async () => {
    const start = await exchange(await code());
    const second = await token({ grant_type: "refresh_token", refresh_token: start.body.refresh_token });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(start.body.refresh_token);
    const third = await token({ grant_type: "refresh_token", refresh_token: second.body.refresh_token });
    expect(third.status).toBe(200);
    expect(await mcpStatus(third.body.access_token)).toBe(200);
    // The first refresh token again: reuse, so every token of the grant goes.
    const reused = await token({ grant_type: "refresh_token", refresh_token: start.body.refresh_token });
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await mcpStatus(third.body.access_token)).toBe(401);
    const latest = await token({ grant_type: "refresh_token", refresh_token: third.body.refresh_token });
    expect(latest.body.error).toBe("invalid_grant");
    // A new dashboard token: the clock has moved past the first one's half hour.
    const login = await test.request("/v1/auth/login", {
      method: "POST",
      json: { email: account.email, password },
    });
    const dashboard = ((await login.json()) as { access_token: string }).access_token;
    const keys = (await (await test.request("/v1/api-keys", { credential: dashboard })).json()) as Array<{
      prefix: string;
      revoked_at: string | null;
    }>;
    expect(keys.filter((key) => key.prefix === "oauth" && key.revoked_at !== null).length).toBeGreaterThan(0);
  });

  it("refuses another client's refresh token, and an unknown client", async () => {
    const other = (await register({ client_name: "Other", redirect_uris: [redirectUrl] })).client_id;
    const start = await exchange(await code());
    const stolen = await token({
      client_id: other,
      grant_type: "refresh_token",
      refresh_token: start.body.refresh_token,
    });
    expect(stolen.body.error).toBe("invalid_grant");
    const unknown = await token({ client_id: "nobody", grant_type: "refresh_token", refresh_token: "x" });
    expect(unknown).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });

  it("refuses a consent form without its CSRF token or cookie, or with another", async () => {
    const form = await openConsentPage(appFetch, authorizeUrl());
    expect(form.fields.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(form.cookie).toContain(form.fields.csrf_token);
    const login = { email: account.email, password, decision: "approve" };
    const cases = [
      { ...form, fields: { ...form.fields, csrf_token: "" } },
      { ...form, fields: { ...form.fields, csrf_token: "A".repeat(43) } },
      { ...form, cookie: "" },
      {
        fields: Object.fromEntries(Object.entries(form.fields).filter(([name]) => name !== "csrf_token")),
        cookie: form.cookie,
      },
    ];
    for (const forged of cases) {
      const answer = await submitConsent(appFetch, origin, forged, login);
      expect(answer.status).toBe(403);
      expect(answer.headers.get("location")).toBeNull();
    }
  });

  it("shows the form again on a wrong password, and sends access_denied on deny", async () => {
    const form = await openConsentPage(appFetch, authorizeUrl());
    const wrong = await submitConsent(appFetch, origin, form, {
      email: account.email,
      password: "not the password",
      decision: "approve",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("location")).toBeNull();
    expect(await wrong.text()).toContain("Wrong email or password.");
    const denied = await submitConsent(appFetch, origin, form, { email: "", password: "", decision: "deny" });
    expect(denied.status).toBe(303);
    const location = new URL(denied.headers.get("location") as string);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("s1");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("registers only https or loopback http redirect URIs without fragments, a bounded number per minute", async () => {
    for (const uri of [
      "http://example.com/cb",
      "https://example.com/cb#x",
      "javascript:alert(1)",
      "https://u:p@example.com/cb",
      "cursor://cb",
    ]) {
      const refused = await register({ redirect_uris: [uri] }, "198.51.100.2");
      expect(refused).toMatchObject({ status: 400, error: "invalid_redirect_uri" });
    }
    expect(await register({ redirect_uris: [] }, "198.51.100.2")).toMatchObject({ status: 400 });
    expect(
      await register({ redirect_uris: [redirectUrl], grant_types: ["implicit"] }, "198.51.100.2"),
    ).toMatchObject({
      status: 400,
      error: "invalid_client_metadata",
    });
    const ok = await register(
      { redirect_uris: ["https://app.example/cb", "http://localhost:8765/cb"] },
      "198.51.100.2",
    );
    expect(ok).toMatchObject({ status: 201, token_endpoint_auth_method: "none" });
    expect(ok.client_secret).toBeUndefined();
    // The bucket: SVC_AUTH_RATE_LIMIT_PER_MINUTE (10) per IP, refusals included.
    let status = 0;
    for (let attempt = 0; attempt < 12 && status !== 429; attempt++)
      status = (await register({ redirect_uris: [redirectUrl] }, "198.51.100.2")).status;
    expect(status).toBe(429);
    expect((await register({ redirect_uris: [redirectUrl] }, "198.51.100.3")).status).toBe(201);
  });

  it("authenticates a confidential client by its secret (client_secret_post), and revokes (RFC 7009)", async () => {
    const confidential = await register({
      redirect_uris: [redirectUrl],
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(confidential.client_secret).toEqual(expect.any(String));
    const back = await approve(appFetch, authorizeUrl({ client_id: confidential.client_id }), {
      email: account.email,
      password,
    });
    const fields = {
      client_id: confidential.client_id,
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      code_verifier: verifier,
      redirect_uri: redirectUrl,
    };
    expect((await token({ ...fields, client_secret: "wrong" })).body.error).toBe("invalid_client");
    const issued = await token({ ...fields, client_secret: confidential.client_secret as string });
    expect(issued.status).toBe(200);
    const revoked = await appFetch(`${origin}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: confidential.client_id,
        client_secret: confidential.client_secret as string,
        token: issued.body.refresh_token,
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(issued.body.access_token)).toBe(401);
  });

  it("authenticates a client_secret_basic client by its Authorization header, and refuses a malformed one", async () => {
    const basic = await register({
      redirect_uris: [redirectUrl],
      token_endpoint_auth_method: "client_secret_basic",
    });
    const back = await approve(appFetch, authorizeUrl({ client_id: basic.client_id }), {
      email: account.email,
      password,
    });
    const send = (authorization: string) =>
      appFetch(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: back.searchParams.get("code") as string,
          code_verifier: verifier,
          redirect_uri: redirectUrl,
        }).toString(),
      });
    const malformed = await send("Basic %%%");
    expect(malformed.status).toBe(401);
    const notBase64 = await send("Basic ab=c=");
    expect(((await notBase64.json()) as { error: string }).error).toBe("invalid_client");
    const answer = await send(`Basic ${btoa(`${basic.client_id}:${basic.client_secret}`)}`);
    expect(answer.status).toBe(200);
  });
});
