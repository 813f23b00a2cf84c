/**
 * `cairn mcp serve --data-dir DIR` serves the registry in its own process, with no server: the
 * SDK's stdio client spawns the real CLI, which keeps memories in DIR's SQLite as the directory's
 * local account (the same one after a restart) and runs commands in local sandboxes. stdout
 * carries JSON-RPC and nothing else.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  builtToolNames,
  cliEntry,
  connectDataDir,
  jsonRpcLines,
  memoryToolNames,
  structured,
} from "./mcp-harness.ts";

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "cairn-stdio-"));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** The CLI in a child process with its output collected, as an MCP client would start it. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, [cliEntry, "mcp", "serve", ...args], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["pipe", "pipe", "pipe"],
  }) as ChildProcessWithoutNullStreams;
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, output, exited };
}

describe("cairn mcp serve --data-dir", () => {
  it("serves every tool with no server, and remembers across a restart as the same local account", async () => {
    const first = await connectDataDir(dataDir);
    let remembered: { id: string };
    try {
      const names = (await first.client.listTools()).tools.map((tool) => tool.name);
      expect(names.sort()).toEqual([...builtToolNames].sort());
      expect(first.client.getServerVersion()?.name).toBe("cairn");
      expect(first.client.getInstructions()).toMatch(/^Memory: call recall and memory_profile/);
      remembered = structured<{ id: string }>(
        await first.client.callTool({
          name: "remember",
          arguments: { content: "The build uses pnpm, not npm", kind: "preference" },
        }),
        "remember",
      );
      const found = structured<{ memories: Array<{ id: string }> }>(
        await first.client.callTool({ name: "recall", arguments: { query: "pnpm" } }),
        "recall",
      );
      expect(found.memories.map((memory) => memory.id)).toEqual([remembered.id]);
    } finally {
      await first.client.close();
    }
    // It let go of the directory when its client closed stdin.
    expect(existsSync(join(dataDir, "serve.lock"))).toBe(false);
    expect(existsSync(join(dataDir, "cairn.db"))).toBe(true);

    const second = await connectDataDir(dataDir, "memory");
    try {
      expect((await second.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        [...memoryToolNames].sort(),
      );
      const found = structured<{ memories: Array<{ id: string; content: string }> }>(
        await second.client.callTool({ name: "recall", arguments: { query: "pnpm" } }),
        "recall",
      );
      expect(found.memories).toEqual([
        expect.objectContaining({ id: remembered.id, content: "The build uses pnpm, not npm" }),
      ]);
      // A failed call reads as it does over HTTP: the REST envelope, and its line of text.
      const refused = await second.client.callTool({
        name: "forget_memory",
        arguments: { memory_id: crypto.randomUUID() },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0].text).toMatch(
        /^Memory error: .* \[memory_not_found\] \(HTTP 404\)$/,
      );
      expect(refused.structuredContent).toMatchObject({
        error: { code: "memory_not_found", retryable: false },
      });
    } finally {
      await second.client.close();
    }
  }, 60_000);

  it("runs commands in a local sandbox", async () => {
    const { client } = await connectDataDir(dataDir, "sandbox");
    try {
      const sandbox = structured<{ id: string; runtime: string }>(
        await client.callTool({ name: "create_sandbox", arguments: {} }),
        "create_sandbox",
      );
      expect(sandbox.runtime).toBe("local");
      const ran = structured<{ exit_code: number; stdout: string }>(
        await client.callTool({
          name: "exec",
          arguments: { session_id: sandbox.id, command: "echo from-the-sandbox; hostname" },
        }),
        "exec",
      );
      expect(ran.exit_code).toBe(0);
      expect(ran.stdout.split("\n")[0]).toBe("from-the-sandbox");
      expect(
        structured(await client.callTool({ name: "destroy_sandbox", arguments: { session_id: sandbox.id } })),
      ).toEqual({ status: "destroyed", id: sandbox.id });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("sends a result as its client reads it: text alone to a 2025-03-26 client, structured alone with --results structured", async () => {
    const cases = [
      { args: [], version: "2025-03-26", structured: false, text: true },
      { args: ["--results", "structured"], version: "2025-06-18", structured: true, text: false },
    ];
    for (const mode of cases) {
      const { child, exited } = startCli(["--data-dir", dataDir, "--tools", "memory", ...mode.args]);
      const { send, answer } = jsonRpcLines(child);
      try {
        const clientInfo = { name: "raw", version: "1" };
        send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: mode.version, capabilities: {}, clientInfo },
        });
        await answer(1);
        send({ jsonrpc: "2.0", method: "notifications/initialized" });
        send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        const tools = (await answer(2))?.result?.tools as Array<{ outputSchema?: unknown }>;
        expect([mode.version, tools.every((tool) => tool.outputSchema !== undefined)]).toEqual([
          mode.version,
          mode.structured,
        ]);
        send({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "memory_profile", arguments: {} },
        });
        const result = (await answer(3))?.result as { content: unknown[]; structuredContent?: unknown };
        expect([mode.version, "structuredContent" in result, result.content.length > 0]).toEqual([
          mode.version,
          mode.structured,
          mode.text,
        ]);
      } finally {
        child.stdin.end();
      }
      expect(await exited).toBe(0);
    }
  }, 60_000);

  it("writes only JSON-RPC messages on stdout, logs on stderr, and exits 0 when stdin closes", async () => {
    const { child, output, exited } = startCli(["--data-dir", dataDir, "--tools", "memory"]);
    const { send, answer } = jsonRpcLines(child);
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      });
      expect(await answer(1)).toHaveProperty("result.serverInfo.name", "cairn");
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect((await answer(2))?.result?.tools).toHaveLength(5);
      send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "remember", arguments: { content: "x" } },
      });
      expect(await answer(3)).toMatchObject({ result: { structuredContent: { content: "x" } } });
      // Malformed: the shared shell answers -32602, as the HTTP transport and the proxy do.
      send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "recall", arguments: "hello" } });
      expect((await answer(4))?.error?.code).toBe(-32602);
      send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "recall", arguments: {} } });
      expect(await answer(5)).toMatchObject({
        result: { isError: true, structuredContent: { error: { code: "validation_error" } } },
      });
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
    const lines = output.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    // The logs went to stderr: the start, each call, the shutdown.
    expect(output.stderr).toMatch(/"msg":"cairn mcp serve ready"/);
    expect(output.stderr).toMatch(/"tool":"remember".*"msg":"tool call"/);
    expect(output.stderr).toMatch(/"msg":"shutting down"/);
  }, 60_000);

  it("refuses a second process on the same directory in one line, and serves on", async () => {
    const { client } = await connectDataDir(dataDir, "memory");
    try {
      const second = startCli(["--data-dir", dataDir]);
      second.child.stdin.end();
      expect(await second.exited).toBe(1);
      expect(second.output.stdout).toBe("");
      expect(second.output.stderr.split("\n").filter(Boolean)).toEqual([
        expect.stringMatching(
          /^cairn: cannot serve .*: another process \(pid \d+\) is serving it, and one process serves a data directory at a time$/,
        ),
      ]);
      structured(await client.callTool({ name: "memory_profile", arguments: {} }), "memory_profile");
    } finally {
      await client.close();
    }
  }, 60_000);

  it("refuses a tool profile that is neither a fixed one nor a loaded plugin's, and lets go of the directory", async () => {
    const { output, exited, child } = startCli(["--data-dir", dataDir, "--tools", "todo"]);
    child.stdin.end();
    expect(await exited).toBe(1);
    expect(output.stdout).toBe("");
    expect(output.stderr.split("\n").filter((line) => line.startsWith("cairn:"))).toEqual([
      `cairn: cannot serve ${dataDir}: --tools must be one of all, memory, sandbox, not "todo"`,
    ]);
    expect(existsSync(join(dataDir, "serve.lock"))).toBe(false);
  }, 60_000);
});
