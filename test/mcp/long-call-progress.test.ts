/**
 * A long tool call other than exec with a `progressToken` says every few seconds that it is still
 * running (docs/mcp.md#progress-and-cancellation): `process_wait` on a process that ends after 11 s
 * gets progress 5 and 10, and a client that resets its request timeout on progress (the SDK's
 * `resetTimeoutOnProgress`) keeps a call alive past that timeout. The official SDK client over the
 * real app in-process, with a real local sandbox.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progressIntervalMilliseconds } from "../../transports/mcp/create-mcp-server.ts";
import { createMcpApp } from "../../transports/mcp/http.ts";
import { createApp } from "../../transports/rest/create-app.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("progress of a long call", () => {
  let test: TestPlatform;
  let close: () => Promise<void>;
  let client: Client;
  let sessionId: string;

  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    const mcp = createMcpApp(test.platform, { clientIp: () => "203.0.113.9" });
    close = mcp.close;
    const app = createApp(test.platform, { mounts: { "/mcp": mcp.app } });
    const { key } = await createAccountWithKey(test);
    client = new Client({ name: "progress", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp?tools=sandbox"), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
        fetch: async (input, init) => app.request(String(input), init),
      }),
    );
    const created = await client.callTool({ name: "create_sandbox", arguments: {} });
    sessionId = (created.structuredContent as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await client?.callTool({ name: "destroy_sandbox", arguments: { session_id: sessionId } });
    await client?.close();
    await close();
    await test.close();
  });

  it("sends process_wait's progress every few seconds, which keeps a client's timeout from expiring", async () => {
    expect(progressIntervalMilliseconds).toBe(5_000);
    const started = await client.callTool({
      name: "process_start",
      arguments: { session_id: sessionId, command: "sleep 11; echo done" },
    });
    const processId = (started.structuredContent as { process_id: string }).process_id;
    const updates: Progress[] = [];
    const result = await client.request(
      {
        method: "tools/call",
        params: {
          name: "process_wait",
          arguments: { session_id: sessionId, process_id: processId, timeout_seconds: 60 },
        },
      },
      CallToolResultSchema,
      // Without progress the call would time out at 8 s; each notification restarts that clock.
      { onprogress: (update) => updates.push(update), timeout: 8_000, resetTimeoutOnProgress: true },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "exited", exit_code: 0 });
    expect(updates.slice(0, 2)).toEqual([
      { progress: 5, message: "process_wait still running after 5 s" },
      { progress: 10, message: "process_wait still running after 10 s" },
    ]);
  }, 60_000);
});
