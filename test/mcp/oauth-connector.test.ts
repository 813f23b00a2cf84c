/**
 * Cairn as an OAuth 2.1 authorization server for its own /mcp (issue 42), end to end with the MCP
 * SDK's own OAuth client: a 401 naming the resource metadata, discovery, dynamic registration, the
 * consent page (played as a browser), the code exchange, then tool calls with the access token.
 * The grant shows in the account's key list, and revoking it there ends it at /mcp. On both stores.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { approve, MemoryOAuthProvider } from "../support/oauth-browser.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";
import { createAccount, type LiveServer, startLiveServer } from "./mcp-harness.ts";

const origin = "http://127.0.0.1:8090";
const password = "correct horse battery";

describe.each(storageTargets)("OAuth for /mcp on %s", (target) => {
  let test: TestPlatform;
  let appFetch: typeof fetch;
  const clock = createFakeClock(new Date());
  beforeAll(async () => {
    test = await createTestPlatform(target, { clock, environment: { SVC_MCP_OAUTH_ENABLED: "true" } });
    appFetch = (input, init) => Promise.resolve(test.app.request(input as string, init));
  });
  afterAll(() => test?.close());

  it("answers /mcp without a credential with 401 and the resource metadata's URL", async () => {
    const answer = await appFetch(`${origin}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const metadata = await appFetch(`${origin}${path}`);
      expect(await metadata.json()).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
      });
    }
    const server = await (await appFetch(`${origin}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
    });
    expect(server.token_endpoint_auth_methods_supported).toContain("none");
  });

  it("lets the SDK's OAuth client register, be approved and call tools; the key list revokes it", async () => {
    const account = await createAccountWithKey(test);
    const provider = new MemoryOAuthProvider();
    const url = new URL(`${origin}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch });
    await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(first)).rejects.toThrow(
      /Unauthorized/,
    );
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.href.startsWith(`${origin}/oauth/authorize?`)).toBe(true);
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${origin}/mcp`);
    expect(provider.client?.client_id).toEqual(expect.any(String));

    const back = await approve(appFetch, authorizationUrl, { email: account.email, password });
    expect(back.origin + back.pathname).toBe(provider.redirectUrl);
    expect(back.searchParams.get("state")).toBe("state-from-the-client");
    await first.finishAuth(back.searchParams.get("code") as string);
    expect(provider.saved).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      expires_in: 3600,
    });
    expect(provider.saved?.access_token.startsWith("cairn_oat_")).toBe(true);

    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch }));
    const remembered = await client.callTool({
      name: "remember",
      arguments: { content: "The OAuth connector works" },
    });
    expect(remembered.isError).toBeFalsy();
    const recalled = await client.callTool({ name: "recall", arguments: { query: "OAuth connector" } });
    expect(JSON.stringify(recalled.structuredContent)).toContain("The OAuth connector works");
    // Acting for the account that consented: its API key sees the same memory.
    const listed = await test.request("/v1/memory", { credential: account.key });
    expect(JSON.stringify(await listed.json())).toContain("The OAuth connector works");

    const keys = (await (await test.request("/v1/api-keys", { credential: account.token })).json()) as Array<{
      id: string;
      name: string;
      prefix: string;
      last_used_at: string | null;
      revoked_at: string | null;
    }>;
    const grant = keys.find((key) => key.prefix === "oauth");
    expect(grant).toMatchObject({ name: "SDK test client (OAuth)", revoked_at: null });
    expect(keys.map((key) => key.id)).toContain(account.keyId);

    const revoked = await test.request(`/v1/api-keys/${grant?.id}`, {
      method: "DELETE",
      credential: account.token,
    });
    expect(revoked.status).toBe(204);
    const after = await appFetch(`${origin}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved?.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(((await after.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      "invalid_token",
    );
    await client.close();
  });

  it("lets the SDK refresh an expired access token by itself, in the same session", async () => {
    const account = await createAccountWithKey(test);
    const provider = new MemoryOAuthProvider();
    const url = new URL(`${origin}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch });
    await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(/Unauthorized/);
    const back = await approve(appFetch, provider.authorizationUrl as URL, {
      email: account.email,
      password,
    });
    await first.finishAuth(back.searchParams.get("code") as string);
    const client = new Client({ name: "t", version: "1" });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch });
    await client.connect(transport);
    const before = { ...provider.saved };
    clock.advance(3_601_000);
    const answer = await client.callTool({ name: "memory_profile", arguments: {} });
    expect(answer.isError).toBeFalsy();
    expect(provider.saved?.access_token).not.toBe(before.access_token);
    expect(provider.saved?.refresh_token).not.toBe(before.refresh_token);
    expect(transport.sessionId).toEqual(expect.any(String));
    await client.close();
  });

  it("refuses its access token on /v1: its audience is /mcp", async () => {
    const account = await createAccountWithKey(test);
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      authProvider: provider,
      fetch: appFetch,
    });
    await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toThrow(/Unauthorized/);
    const back = await approve(appFetch, provider.authorizationUrl as URL, {
      email: account.email,
      password,
    });
    await transport.finishAuth(back.searchParams.get("code") as string);
    const token = provider.saved?.access_token as string;
    for (const path of ["/v1/account", "/v1/memory", "/v1/api-keys"]) {
      const answer = await test.request(path, { credential: token });
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("wrong_credential_type");
    }
  });
});

describe("OAuth for /mcp turned off (the default)", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
  });
  afterAll(() => test?.close());

  it("serves no metadata or endpoints, and its 401 names no resource metadata", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/oauth/authorize",
    ])
      expect((await test.request(path)).status).toBe(404);
    expect((await test.request("/oauth/register", { method: "POST", json: {} })).status).toBe(404);
    const answer = await test.request("/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBeNull();
    // API keys keep working.
    const account = await createAccountWithKey(test);
    const withKey = await test.request("/mcp", {
      method: "POST",
      credential: account.key,
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(withKey.status).toBe(200);
  });
});

describe("OAuth for /mcp on the real server over HTTP", () => {
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer({ SVC_MCP_OAUTH_ENABLED: "true" });
  }, 60_000);
  afterAll(() => server?.close());

  it("names its own address as the resource, and the SDK's client gets through to a tool", async () => {
    const account = await createAccount(server.baseUrl);
    const url = new URL(`${server.baseUrl}/mcp`);
    const provider = new MemoryOAuthProvider();
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "oauth-live", version: "1.0.0" }).connect(first)).rejects.toThrow(
      /Unauthorized/,
    );
    expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(url.href);
    const back = await approve(fetch, provider.authorizationUrl as URL, { email: account.email, password });
    await first.finishAuth(back.searchParams.get("code") as string);
    const client = new Client({ name: "oauth-live", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const listed = await client.callTool({ name: "memory_profile", arguments: {} });
    expect(listed.isError).toBeFalsy();
    await client.close();
  });
});

describe("OAuth for /mcp behind a proxy (SVC_PUBLIC_URL)", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", {
      environment: { SVC_MCP_OAUTH_ENABLED: "true", SVC_PUBLIC_URL: "https://cairn.example.com" },
    });
  });
  afterAll(() => test?.close());

  it("names the public origin, not the address the request came to, and marks the CSRF cookie Secure", async () => {
    const resource = await (await test.request("/.well-known/oauth-protected-resource/mcp")).json();
    expect(resource).toMatchObject({
      resource: "https://cairn.example.com/mcp",
      authorization_servers: ["https://cairn.example.com"],
    });
    const server = await (await test.request("/.well-known/oauth-authorization-server")).json();
    expect(server.token_endpoint).toBe("https://cairn.example.com/oauth/token");
    const refused = await test.request("/mcp", {
      method: "POST",
      json: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(refused.headers.get("www-authenticate")).toContain(
      'resource_metadata="https://cairn.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const registered = await test.request("/oauth/register", {
      method: "POST",
      json: { redirect_uris: ["https://app.example/cb"] },
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const page = await test.request(
      `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        resource: "https://cairn.example.com/mcp",
      })}`,
    );
    expect(page.status).toBe(200);
    expect(page.headers.get("set-cookie")).toMatch(/HttpOnly/i);
    expect(page.headers.get("set-cookie")).toMatch(/Secure/i);
    expect(page.headers.get("set-cookie")).toMatch(/SameSite=Lax/i);
  });
});
