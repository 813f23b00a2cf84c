/**
 * A streamed exec over MCP with the SDK's own client, over HTTP and over stdio (`cairn mcp serve`)
 * against a live server, and over stdio in-process (`--data-dir`), with real local sandboxes (docs/mcp.md#progress-and-cancellation): a call
 * with a progressToken gets `notifications/progress` carrying the output while the command runs (it
 * waits for a marker file a second call creates once the first progress came), then the result; a
 * call cancelled with an AbortController stops its command and what it started (a follow-up exec
 * takes the lock the command held), the server keeps serving and logs no error; over raw HTTP a
 * cancelled call's request is answered at once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import {
  connectDataDir,
  createAccount,
  type LiveServer,
  startLiveServer,
  structured,
  transports,
} from "./mcp-harness.ts";

let server: LiveServer;
let dataDir: string;
beforeAll(async () => {
  server = await startLiveServer();
  dataDir = await mkdtemp(join(tmpdir(), "cairn-progress-"));
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface Connection {
  client: Client;
  /** The serving process's log so far. */
  logs(): string;
}

/** The live server over HTTP and the stdio proxy, and `cairn mcp serve --data-dir` (its own process). */
const connections = [
  ...transports.map(({ name, connect }) => ({
    name,
    async open(): Promise<Connection> {
      const account = await createAccount(server.baseUrl);
      return { client: await connect(server.baseUrl, account.key, "sandbox"), logs: () => server.output() };
    },
  })),
  {
    name: "stdio in-process (--data-dir)",
    async open(): Promise<Connection> {
      const served = await connectDataDir(dataDir, "sandbox");
      return { client: served.client, logs: served.stderr };
    },
  },
];

interface ExecResult {
  exit_code: number;
  stdout: string;
  stderr: string;
}

describe.each(connections)("exec with progress over $name", ({ open }) => {
  let client: Client;
  let logs: () => string;
  let session_id: string;
  const exec = async (command: string) =>
    structured<ExecResult>(
      await client.callTool({ name: "exec", arguments: { session_id, command } }),
      "exec",
    );

  beforeAll(async () => {
    ({ client, logs } = await open());
    session_id = structured<{ id: string }>(
      await client.callTool({ name: "create_sandbox", arguments: { size: "small" } }),
    ).id;
  }, 120_000);
  afterAll(() => client.close());

  it("sends the output as progress while the command runs, then the result", {
    timeout: 60_000,
  }, async () => {
    const marker = `/workspace/go-${crypto.randomUUID()}`;
    const updates: Progress[] = [];
    // The SDK's client handles a notification a microtask after a response read in the same chunk
    // (modelcontextprotocol/typescript-sdk#2580), so over a pipe the last progress can reach it
    // after the result; it then drops it and says so through onerror. Those count as sent.
    const late: Progress[] = [];
    client.onerror = (error) => {
      const dropped = /unknown token: (.*)$/s.exec(error.message);
      if (dropped) late.push(JSON.parse(dropped[1] as string).params);
    };
    let released: Promise<ExecResult> | undefined;
    const result = await client.request(
      {
        method: "tools/call",
        params: {
          name: "exec",
          arguments: {
            session_id,
            command: `echo first; while [ ! -e ${marker} ]; do sleep 0.05; done; echo second >&2`,
          },
        },
      },
      CallToolResultSchema,
      {
        onprogress(update) {
          updates.push(update);
          // The command cannot end before the marker exists, and it is made only now.
          if (released === undefined) released = exec(`touch ${marker}`);
        },
      },
    );
    expect((await released)?.exit_code).toBe(0);
    expect(structured<ExecResult>(result)).toMatchObject({
      exit_code: 0,
      stdout: "first\n",
      stderr: "second\n",
    });
    expect(updates[0]).toMatchObject({ progress: 6, message: "first\n" });
    const sent = [...updates, ...late];
    expect(sent.map((update) => update.message).join("")).toBe("first\nsecond\n");
    const values = sent.map((update) => update.progress);
    expect(values).toEqual(values.toSorted((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it("answers a call without a progressToken as before", async () => {
    expect(await exec("echo plain")).toMatchObject({ exit_code: 0, stdout: "plain\n" });
  });

  it("stops the command of a cancelled call and keeps serving", { timeout: 60_000 }, async () => {
    const lock = `/workspace/held-${crypto.randomUUID()}`;
    const cancel = new AbortController();
    const call = client.request(
      {
        method: "tools/call",
        params: {
          name: "exec",
          arguments: {
            session_id,
            command: `exec 9>${lock}; flock 9; echo holding; sleep 1000`,
            timeout: 1200,
          },
        },
      },
      CallToolResultSchema,
      { signal: cancel.signal, onprogress: () => cancel.abort("no longer needed") },
    );
    await expect(call).rejects.toThrow();
    // The shell and its sleep both hold the lock's descriptor: it is free once both are gone.
    await eventually(async () => ((await exec(`flock -n ${lock} true`)).exit_code === 0 ? true : undefined));
    expect(await exec("echo still here")).toMatchObject({ stdout: "still here\n" });
    expect(logs()).not.toMatch(/tool failed|request failed|sandbox runtime failure/);
  });
});

describe("a cancelled call over raw HTTP", () => {
  it("is answered at once, with or without progress", { timeout: 60_000 }, async () => {
    const account = await createAccount(server.baseUrl);
    const headers = {
      Authorization: `Bearer ${account.key}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-06-18",
    };
    const post = (body: unknown, sessionId?: string) =>
      fetch(`${server.baseUrl}/mcp?tools=sandbox`, {
        method: "POST",
        headers: sessionId ? { ...headers, "Mcp-Session-Id": sessionId } : headers,
        body: JSON.stringify(body),
      });
    const opened = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect(opened.headers.get("content-type")).toMatch(/^application\/json/);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
    const created = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_sandbox", arguments: {} } },
      sessionId,
    );
    const session_id = (await created.json()).result.structuredContent.id as string;
    for (const [id, meta] of [
      [3, undefined],
      [4, { progressToken: "p4" }],
    ] as const) {
      const lock = `/workspace/raw-${id}`;
      const call = post(
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: "exec",
            arguments: { session_id, command: `exec 9>${lock}; flock 9; sleep 1000` },
            ...(meta ? { _meta: meta } : {}),
          },
        },
        sessionId,
      );
      const probe = async (probeId: number) => {
        const answer = await post(
          {
            jsonrpc: "2.0",
            id: probeId,
            method: "tools/call",
            params: { name: "exec", arguments: { session_id, command: `flock -n ${lock} true` } },
          },
          sessionId,
        );
        return (await answer.json()).result.structuredContent.exit_code as number;
      };
      // Running once its lock is held.
      await eventually(async () => ((await probe(100 + id)) === 1 ? true : undefined));
      const cancelled = await post(
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "test" } },
        sessionId,
      );
      expect(cancelled.status).toBe(202);
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(await answer.text()).not.toContain('"result"');
      await eventually(async () => ((await probe(200 + id)) === 0 ? true : undefined));
    }
  });
});
