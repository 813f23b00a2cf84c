/**
 * Client ID metadata documents (issue 42): an MCP client whose client_id is an https URL needs no
 * registration; Cairn fetches the document through the Egress port. The SDK's OAuth client uses
 * one end to end against a stand-in Egress that serves the document (a public https host cannot
 * run here), asserting the exact request; the real Egress refuses a loopback document URL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Egress, type EgressRequest, pkceChallenge } from "../../core/index.ts";
import { type CairnApp, createCairnApp } from "../../platform/create-cairn-app.ts";
import { approve, MemoryOAuthProvider, redirectUrl } from "../support/oauth-browser.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

const origin = "http://127.0.0.1:8090";
const password = "correct horse battery";
const documentUrl = "https://client.example/oauth/cairn-client.json";

describe.each(storageTargets)("client ID metadata documents on %s", (target) => {
  let test: TestPlatform;
  let cairn: CairnApp;
  let appFetch: typeof fetch;
  const requests: EgressRequest[] = [];
  /** What the stand-in serves, by URL; `truncated` marks an answer cut at the size bound. */
  const served = new Map<string, { body: unknown; truncated?: boolean }>();

  beforeAll(async () => {
    test = await createTestPlatform(target, { environment: { SVC_MCP_OAUTH_ENABLED: "true" } });
    const egress: Egress = {
      resolve: async () => ["93.184.215.14"],
      async request(request) {
        requests.push(request);
        const answer = served.get(request.url);
        if (!answer) return { statusCode: 404, headers: {}, body: "", truncated: false };
        return {
          statusCode: 200,
          headers: {},
          body: JSON.stringify(answer.body),
          truncated: answer.truncated ?? false,
        };
      },
    };
    cairn = createCairnApp({ ...test.platform, egress }, { clientIp: () => "203.0.113.9" });
    appFetch = (input, init) => Promise.resolve(cairn.app.request(input as string, init));
  });
  afterAll(async () => {
    await cairn?.close();
    await test?.close();
  });

  it("lets the SDK's client use its document's URL as client_id, without registering", async () => {
    served.set(documentUrl, {
      body: {
        client_id: documentUrl,
        client_name: "Document client",
        redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    });
    const metadata = await (await appFetch(`${origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    const account = await createAccountWithKey(test);
    const provider = new MemoryOAuthProvider(documentUrl);
    const url = new URL(`${origin}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch });
    await expect(new Client({ name: "cimd", version: "1" }).connect(first)).rejects.toThrow(/Unauthorized/);
    expect(provider.client?.client_id).toBe(documentUrl);
    expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(documentUrl);
    const back = await approve(appFetch, provider.authorizationUrl as URL, {
      email: account.email,
      password,
    });
    await first.finishAuth(back.searchParams.get("code") as string);
    const client = new Client({ name: "cimd", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: appFetch }));
    expect((await client.callTool({ name: "memory_profile", arguments: {} })).isError).toBeFalsy();
    await client.close();
    // Fetched once (then kept), only ever with the safe bounds.
    expect(requests).toEqual([
      {
        method: "GET",
        url: documentUrl,
        headers: { accept: "application/json" },
        body: null,
        timeoutSeconds: 5,
        maxResponseBytes: 5120,
        allowPrivate: false,
      },
    ]);
    const keys = (await (await test.request("/v1/api-keys", { credential: account.token })).json()) as Array<{
      name: string;
      prefix: string;
    }>;
    expect(keys.find((key) => key.prefix === "oauth")?.name).toBe("Document client (OAuth)");
  });

  it("shows why a URL client id cannot be used, and sends nothing to its redirect URI", async () => {
    const authorize = (clientId: string) => {
      const url = new URL(`${origin}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUrl,
        code_challenge: pkceChallenge("x".repeat(43)),
        code_challenge_method: "S256",
        state: "s",
      }).toString();
      return appFetch(url, { redirect: "manual" });
    };
    const base = "https://client.example/oauth";
    served.set(`${base}/other.json`, {
      body: { client_id: `${base}/else.json`, redirect_uris: [redirectUrl] },
    });
    served.set(`${base}/plain-http.json`, {
      body: { client_id: `${base}/plain-http.json`, redirect_uris: ["http://evil.example/cb"] },
    });
    served.set(`${base}/secret.json`, {
      body: { client_id: `${base}/secret.json`, redirect_uris: [redirectUrl], client_secret: "s" },
    });
    served.set(`${base}/big.json`, {
      body: { client_id: `${base}/big.json`, redirect_uris: [redirectUrl] },
      truncated: true,
    });
    const cases: Array<[string, string]> = [
      [`${base}/missing.json`, "could not be fetched"],
      [`${base}/big.json`, "could not be fetched"],
      [`${base}/other.json`, "names another client_id"],
      [`${base}/plain-http.json`, "has a bad redirect URI"],
      [`${base}/secret.json`, "must not hold a client_secret"],
      ["https://client.example/", "needs a path"],
      ["https://client.example/a/../b.json", "needs a path and must be normalised"],
    ];
    for (const [clientId, why] of cases) {
      const answer = await authorize(clientId);
      expect(answer.status).toBe(400);
      expect(answer.headers.get("location")).toBeNull();
      expect(await answer.text()).toContain(why);
    }
  });
});

describe("client ID metadata documents with the real Egress", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { environment: { SVC_MCP_OAUTH_ENABLED: "true" } });
  });
  afterAll(() => test?.close());

  it("refuses a document on a loopback or private address", async () => {
    for (const clientId of [
      "https://127.0.0.1:9/client.json",
      "https://localhost:9/client.json",
      "https://169.254.169.254/latest.json",
    ]) {
      const url = new URL(`${origin}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUrl,
        code_challenge: pkceChallenge("x".repeat(43)),
        code_challenge_method: "S256",
      }).toString();
      const answer = await test.app.request(url.href);
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain("could not be fetched");
    }
  });
});
