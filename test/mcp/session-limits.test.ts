/**
 * MCP sessions cannot pile up: an account holds a bounded number (opening one more closes the one
 * used least recently, idle ones before one answering a request), and an idle session is dropped.
 * A reclaimed session's client goes on: its requests are answered statelessly (the official SDK
 * does not open a new session after a 404, so agents sharing a key broke each other's clients for
 * good), with no event stream; to another key, or once forgotten, it is unknown (404). Small
 * limits, the real app and transport.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "../../transports/mcp/http.ts";
import { createApp } from "../../transports/rest/create-app.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

const headers = (key: string, session?: string) => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
  ...(session ? { "mcp-session-id": session } : {}),
});
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "limits", version: "1" } },
});
const listTools = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });

describe("MCP session limits", () => {
  let test: TestPlatform;
  let app: ReturnType<typeof createApp>;
  let close: () => Promise<void>;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    const mcp = createMcpApp(test.platform, {
      clientIp: () => "203.0.113.9",
      sessionsPerAccount: 2,
      // Long enough that a loaded machine's slow request does not make the other sessions idle.
      sessionIdleMilliseconds: 1_000,
    });
    close = mcp.close;
    app = createApp(test.platform, { mounts: { "/mcp": mcp.app } });
    key = (await createAccountWithKey(test)).key;
    otherKey = (await createAccountWithKey(test)).key;
  });
  afterAll(async () => {
    await close();
    await test.close();
  });

  const open = async (credential: string) => {
    const response = await app.request("/mcp", {
      method: "POST",
      headers: headers(credential),
      body: initialize,
    });
    expect(response.status).toBe(200);
    return response.headers.get("mcp-session-id") as string;
  };
  const statusOf = async (credential: string, session: string) =>
    (await app.request("/mcp", { method: "POST", headers: headers(credential, session), body: listTools }))
      .status;
  /** 200 for an open session's event stream, 405 for a reclaimed one (it has none), 404 for an unknown one. */
  const streamStatusOf = async (credential: string, session: string) => {
    const controller = new AbortController();
    const response = await app.request("/mcp", {
      method: "GET",
      headers: { ...headers(credential, session), accept: "text/event-stream" },
      signal: controller.signal,
    });
    controller.abort();
    await response.body?.cancel().catch(() => {});
    return response.status;
  };

  it("closes an account's least recently used session when it opens one more than allowed, leaving other accounts alone", async () => {
    const others = await open(otherKey);
    const first = await open(key);
    const second = await open(key);
    // The first is used after the second opened: the second is now the one used least recently.
    expect(await statusOf(key, first)).toBe(200);
    const third = await open(key);
    expect(await streamStatusOf(key, second)).toBe(405);
    // Its client goes on, statelessly; to another key it does not exist.
    expect(await statusOf(key, second)).toBe(200);
    expect(await statusOf(otherKey, second)).toBe(404);
    expect(await streamStatusOf(key, first)).toBe(200);
    expect(await statusOf(key, first)).toBe(200);
    expect(await statusOf(key, third)).toBe(200);
    expect(await statusOf(otherKey, others)).toBe(200);
  });

  it.each([
    ["answered as JSON", false],
    ["streamed with progress", true],
  ])(
    "reclaims an idle session before one that is answering a request (%s), however recently used",
    async (_, streamed) => {
      const account = await createAccountWithKey(test);
      const rest = (path: string, json: unknown) =>
        test.request(path, { method: "POST", credential: account.key, json });
      const sandbox = (await (await rest("/v1/sandboxes", { size: "small" })).json()) as { id: string };
      expect(
        (await rest(`/v1/sandboxes/${sandbox.id}/exec`, { command: "mkfifo /tmp/gate /tmp/ready" })).status,
      ).toBe(200);
      const busy = await open(account.key);
      // A call that waits on the gate keeps the busy session answering a request.
      const waiting = app.request("/mcp", {
        method: "POST",
        headers: headers(account.key, busy),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: {
            name: "exec",
            arguments: {
              session_id: sandbox.id,
              command: "echo up > /tmp/ready && cat /tmp/gate",
              timeout: 60,
            },
            // Streamed, the answer has begun (its headers sent) while the call still runs.
            ...(streamed && { _meta: { progressToken: "busy" } }),
          },
        }),
      });
      // Each exec has its own process namespace: the call says it runs through a fifo, whose read
      // here returns once the call has written to it (no polling).
      const ready = await rest(`/v1/sandboxes/${sandbox.id}/exec`, {
        command: "cat /tmp/ready",
        timeout: 60,
      });
      expect(((await ready.json()) as { stdout: string }).stdout).toBe("up\n");
      const idle = await open(account.key);
      expect(await statusOf(account.key, idle)).toBe(200);
      // One more than the limit of 2: the idle one goes, though the busy one was used earlier.
      const newest = await open(account.key);
      expect(await streamStatusOf(account.key, idle)).toBe(405);
      expect(await streamStatusOf(account.key, busy)).toBe(200);
      expect(await statusOf(account.key, newest)).toBe(200);
      await rest(`/v1/sandboxes/${sandbox.id}/exec`, { command: "echo open > /tmp/gate" });
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("exit_code");
      expect(await statusOf(account.key, busy)).toBe(200);
      await test.request(`/v1/sandboxes/${sandbox.id}`, { method: "DELETE", credential: account.key });
    },
    60_000,
  );

  it("keeps the SDK client of a reclaimed session working, statelessly, until it ends the session", async () => {
    const account = await createAccountWithKey(test);
    const connect = async () => {
      const client = new Client({ name: "evicted", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp?tools=memory"), {
          requestInit: { headers: { Authorization: `Bearer ${account.key}` } },
          fetch: async (input, init) => app.request(String(input), init),
        }),
      );
      return client;
    };
    const oldest = await connect();
    const others = [await connect(), await connect()];
    // Reclaimed by the two newer ones (limit 2): its calls are still answered, with its profile.
    const names = (await oldest.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("recall");
    expect(names).not.toContain("exec");
    const remembered = await oldest.callTool({ name: "remember", arguments: { content: "still here" } });
    expect(remembered.isError).toBeFalsy();
    // Ending it forgets it: the id is then unknown like any other.
    const sessionId = (oldest.transport as StreamableHTTPClientTransport).sessionId as string;
    await (oldest.transport as StreamableHTTPClientTransport).terminateSession();
    expect(await statusOf(account.key, sessionId)).toBe(404);
    await Promise.all([oldest, ...others].map((client) => client.close()));
  });

  it("drops a session left idle, when the next one opens", async () => {
    const idle = await open(otherKey);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await open(key);
    expect(await streamStatusOf(otherKey, idle)).toBe(405);
    expect(await statusOf(key, idle)).toBe(404);
  });
});
