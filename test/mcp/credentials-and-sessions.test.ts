/**
 * /mcp at the HTTP level: the REST credential rules before any MCP message is read, refusals as
 * JSON-RPC errors carrying the REST error body, sessions that belong to the key that opened them,
 * stateless calls, and bad requests.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccount,
  httpTransport,
  type LiveServer,
  startLiveServer,
  type TestAccount,
} from "./mcp-harness.ts";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let server: LiveServer;
let owner: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  server = await startLiveServer();
  owner = await createAccount(server.baseUrl);
  other = await createAccount(server.baseUrl);
});
afterAll(() => server.close());

function post(body: unknown, headers: Record<string, string> = {}, query = "") {
  return fetch(`${server.baseUrl}/mcp${query}`, {
    method: "POST",
    headers: { ...mcpHeaders, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A POST whose Host header is the one given. */
function postWithHost(body: unknown, headers: Record<string, string>) {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request({ hostname, port, path: "/mcp", method: "POST", headers }, (response) => {
      let text = "";
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    sent.on("error", reject);
    sent.end(JSON.stringify(body));
  });
}

async function envelope(response: Response) {
  return { status: response.status, body: await response.json() };
}

/** A refusal at /mcp's door: a JSON-RPC error with the REST error body as its `data`. */
const jsonRpcRefusal = (jsonRpcCode: number, data: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: null,
  error: { code: jsonRpcCode, message: expect.any(String), data: expect.objectContaining(data) },
});

describe("credentials on /mcp", () => {
  const refused = (code: string) => ({
    status: 401,
    body: jsonRpcRefusal(-32000, { code, retryable: false, message: expect.any(String) }),
  });

  it("refuses a missing or malformed Authorization header with missing_credentials", async () => {
    expect(await envelope(await post(initialize))).toEqual(refused("missing_credentials"));
    expect(await envelope(await post(initialize, { authorization: `Token ${owner.key}` }))).toEqual(
      refused("missing_credentials"),
    );
  });

  it("refuses a dashboard token with wrong_credential_type", async () => {
    expect(await envelope(await post(initialize, { authorization: `Bearer ${owner.token}` }))).toEqual(
      refused("wrong_credential_type"),
    );
  });

  it("refuses unknown, mistyped and revoked keys with invalid_api_key, the last one mid-session", async () => {
    const mistyped = `${owner.key.slice(0, -1)}${owner.key.endsWith("a") ? "b" : "a"}`;
    expect(await envelope(await post(initialize, { authorization: `Bearer ${mistyped}` }))).toEqual(
      refused("invalid_api_key"),
    );
    const account = await createAccount(server.baseUrl);
    const client = new Client({ name: "revoked", version: "1" });
    await client.connect(httpTransport(server.baseUrl, account.key));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const revoked = await fetch(`${server.baseUrl}/v1/api-keys/${account.keyId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(revoked.status).toBe(204);
    await expect(client.listTools()).rejects.toThrow(/invalid_api_key/);
    expect(await envelope(await post(initialize, { authorization: `Bearer ${account.key}` }))).toEqual(
      refused("invalid_api_key"),
    );
  });

  it("answers the SDK client's connect with the same refusal", async () => {
    const client = new Client({ name: "jwt", version: "1" });
    await expect(client.connect(httpTransport(server.baseUrl, owner.token))).rejects.toThrow(
      /wrong_credential_type/,
    );
  });
});

describe("MCP sessions", () => {
  it("belong to the key that opened them: another account's key is told the session does not exist", async () => {
    const transport = httpTransport(server.baseUrl, owner.key);
    const client = new Client({ name: "owner", version: "1" });
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const hijack = await post(listTools, {
      authorization: `Bearer ${other.key}`,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    });
    expect(await envelope(hijack)).toEqual({
      status: 404,
      body: jsonRpcRefusal(-32001, { code: "not_found" }),
    });
    // The owner's session is untouched by the attempt.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    // A GET opens a session's event stream, for its owner only (the SDK client above holds its
    // own session's stream, and the transport allows one, so this opens a second session raw).
    const raw = await post(initialize, { authorization: `Bearer ${owner.key}` });
    const rawSession = raw.headers.get("mcp-session-id") as string;
    const streamHeaders = (key: string) => ({
      accept: "text/event-stream",
      authorization: `Bearer ${key}`,
      "mcp-session-id": rawSession,
      "mcp-protocol-version": "2025-06-18",
    });
    expect((await fetch(`${server.baseUrl}/mcp`, { headers: streamHeaders(other.key) })).status).toBe(404);
    const stream = new AbortController();
    const opened = await fetch(`${server.baseUrl}/mcp`, {
      headers: streamHeaders(owner.key),
      signal: stream.signal,
    });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toMatch(/text\/event-stream/);
    stream.abort();

    // DELETE ends it; afterwards it is unknown.
    await transport.terminateSession();
    const ended = await post(listTools, {
      authorization: `Bearer ${owner.key}`,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    });
    expect(ended.status).toBe(404);
    await client.close();
  });

  it("refuses JSON-RPC batches from 2025-06-18 on, and serves them to 2025-03-26 clients", async () => {
    const authorization = `Bearer ${owner.key}`;
    const batch = [listTools, { ...listTools, id: 3 }];
    const refused = await post(batch, { authorization, "mcp-protocol-version": "2025-06-18" });
    expect(await envelope(refused)).toEqual({
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "JSON-RPC batches are not part of MCP 2025-06-18: send one message per request",
          data: null,
        },
      },
    });
    const served = await post(batch, { authorization, "mcp-protocol-version": "2025-03-26" });
    expect(served.status).toBe(200);
    expect((await served.json()).map((answer: { id: number }) => answer.id).sort()).toEqual([2, 3]);
  });

  it("refuses a page of another site (Origin), and a foreign Host on a loopback address (DNS rebinding)", async () => {
    const authorization = `Bearer ${owner.key}`;
    const { host } = new URL(server.baseUrl);
    const foreign: Array<Record<string, string>> = [
      { origin: "http://evil.example" },
      { host: "evil.example" },
      { host: "evil.example", origin: "http://evil.example" },
    ];
    for (const headers of foreign) {
      // node:http, not fetch, which sends its own Host whatever it is given.
      const response = await postWithHost(listTools, { ...mcpHeaders, authorization, ...headers });
      expect([headers, response.status]).toEqual([headers, 403]);
      expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
    for (const origin of [`http://${host}`, "http://localhost:6274", "http://127.0.0.1:3000"]) {
      const response = await post(listTools, { authorization, origin });
      expect([origin, response.status]).toEqual([origin, 200]);
    }
  });

  it("serves a request without a session statelessly", async () => {
    const response = await post(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "memory_profile", arguments: {} } },
      { authorization: `Bearer ${owner.key}` },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = await response.json();
    expect(body).toMatchObject({ id: 7, result: { structuredContent: { static: [], dynamic: [] } } });
  });

  it("answers a malformed tools/call with -32602 Invalid params, not an internal error", async () => {
    for (const params of [
      { name: "recall", arguments: "hello" },
      { name: "recall", arguments: ["x"] },
      { name: 5, arguments: {} },
      undefined,
    ]) {
      const response = await post(
        { jsonrpc: "2.0", id: 8, method: "tools/call", ...(params ? { params } : {}) },
        { authorization: `Bearer ${owner.key}` },
      );
      const body = await response.json();
      expect([JSON.stringify(params), body.error?.code]).toEqual([JSON.stringify(params), -32602]);
      expect(body.error.message).toMatch(/^MCP error -32602: Invalid tools\/call request/);
    }
  });

  it("refuses GET and DELETE without a session, an unknown profile, other methods and malformed JSON", async () => {
    const authorization = `Bearer ${owner.key}`;
    expect((await fetch(`${server.baseUrl}/mcp`, { headers: { authorization } })).status).toBe(405);
    expect((await fetch(`${server.baseUrl}/mcp`, { method: "PUT", headers: { authorization } })).status).toBe(
      405,
    );
    expect(await envelope(await post(initialize, { authorization }, "?tools=everything"))).toEqual({
      status: 422,
      body: jsonRpcRefusal(-32602, {
        code: "validation_error",
        details: [expect.objectContaining({ loc: ["query", "tools"] })],
      }),
    });
    expect(await envelope(await post("{not json", { authorization }))).toEqual({
      status: 400,
      body: jsonRpcRefusal(-32700, { code: "invalid_json" }),
    });
  });

  // Regression: JSON too deep or too wide to follow was answered as a parse error, unlike REST.
  it("refuses a message too deep or too wide to follow as invalid params, as REST refuses the body", async () => {
    const authorization = `Bearer ${owner.key}`;
    const call = (value: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "recall", arguments: { value } },
      });
    // Limits that hold for a body over 64 Ki characters (docs/api.md): the deep one is padded.
    const deep = call([JSON.parse(`${"[".repeat(1_200)}${"]".repeat(1_200)}`), "x".repeat(70_000)]);
    const wide = call(Array.from({ length: 100_001 }, () => 0));
    for (const [body, type] of [
      [deep, "too_deep"],
      [wide, "too_wide"],
    ]) {
      expect(await envelope(await post(body, { authorization }))).toEqual({
        status: 422,
        body: jsonRpcRefusal(-32602, {
          code: "validation_error",
          details: [expect.objectContaining({ type, loc: ["body"] })],
        }),
      });
    }
  });
});
