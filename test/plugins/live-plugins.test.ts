/**
 * Both example plugins loaded from their paths into a live server, on Node and on Deno: their
 * tools over REST (own route and POST /v1/tools/{name}) and MCP (the SDK's client, the `all`
 * profile and the plugin's own), and the session journal's memories recalled after a sandbox is
 * destroyed. On Node also when the server is killed (SIGKILL) after the destroy answered but
 * before delivery (SVC_PLUGIN_EVENT_DELAY_SECONDS holds it back), then restarted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtToolNames, connectHttp, structured } from "../mcp/mcp-harness.ts";
import { eventually } from "../support/eventually.ts";
import { type RunningServer, serverRuntimes, signUpWithKey, startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const plugins = [join(root, "examples/plugins/todo"), join(root, "examples/plugins/session-journal")].join(
  ",",
);

type Json = Record<string, unknown>;

function client(baseUrl: string, key: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  return {
    post: (path: string, body: unknown = {}) => call("POST", path, body),
    get: (path: string) => call("GET", path),
    delete: (path: string) => call("DELETE", path),
  };
}

/** A sandbox session that runs two commands (one fails) and writes a file, then is destroyed. */
async function runSession(api: ReturnType<typeof client>, fileName: string) {
  const created = await api.post("/v1/sandboxes", {});
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const ok = await api.post(`/v1/sandboxes/${id}/exec`, { command: "echo compiled > build.log" });
  expect(ok.body.exit_code).toBe(0);
  const failed = await api.post(`/v1/sandboxes/${id}/exec`, { command: "sh -c 'exit 4'" });
  expect(failed.body.exit_code).toBe(4);
  const file = await api.post(`/v1/sandboxes/${id}/files`, {
    path: `src/${fileName}`,
    content: "print(1)\n",
  });
  expect(file.status).toBe(200);
  expect((await api.delete(`/v1/sandboxes/${id}`)).status).toBe(204);
  return id;
}

/** The memories recall finds for a query, with their session ids. */
async function recalled(api: ReturnType<typeof client>, query: string) {
  const found = await api.get(`/v1/memory/search?q=${encodeURIComponent(query)}`);
  return found.body.memories as Array<{ content: string; source_session_id: string | null }>;
}

/**
 * What recall finds for a query once it holds the session's memory that says `expected`: the
 * journal writes the summary first, then one memory per command and file, and the summary names
 * the files too, so a memory of the session alone does not mean the one wanted is written.
 */
async function journaled(api: ReturnType<typeof client>, sandboxId: string, query: string, expected: string) {
  return eventually(async () => {
    const memories = await recalled(api, query);
    const found = memories.some(
      (memory) => memory.source_session_id === sandboxId && memory.content.includes(expected),
    );
    return found ? memories : undefined;
  });
}

describe.each(serverRuntimes)("the example plugins on $name", (runtime) => {
  let server: RunningServer;
  let dataDir: string;
  let key: string;
  let api: ReturnType<typeof client>;
  let mcp: Client | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-plugins-"));
    server = await startServer(runtime.command, runtime.args, {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      SVC_PLUGINS: plugins,
    });
    key = (await signUpWithKey(server.baseUrl)).key;
    api = client(server.baseUrl, key);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves todo over REST: its own route and POST /v1/tools/{name}", async () => {
    const added = await api.post("/v1/plugins/todo/add", { text: "Update the changelog" });
    expect(added.status).toBe(200);
    const listed = await api.post("/v1/tools/todo.list", {});
    expect(listed.status).toBe(200);
    expect(listed.body.tasks).toEqual([added.body]);
    const listing = await api.get("/v1/tools");
    const names = (listing.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names.slice(-4)).toEqual(["todo.add", "todo.list", "todo.done", "session-journal.recent"]);
  });

  it("serves both plugins' tools over MCP: in the all profile and in each plugin's own", async () => {
    mcp = await connectHttp(server.baseUrl, key);
    const all = (await mcp.listTools()).tools.map((tool) => tool.name);
    // The 31 built-in tools, then the plugins' in load order.
    expect(all.slice(-4)).toEqual(["todo__add", "todo__list", "todo__done", "session_journal__recent"]);
    expect(all.slice(0, -4).toSorted()).toEqual([...builtToolNames].sort());
    const added = structured<{ id: string; text: string }>(
      await mcp.callTool({ name: "todo__add", arguments: { text: "Answer the review comments" } }),
      "todo__add",
    );
    expect(added.text).toBe("Answer the review comments");
    const own = await connectHttp(server.baseUrl, key, "todo");
    try {
      expect((await own.listTools()).tools.map((tool) => tool.name)).toEqual([
        "todo__add",
        "todo__list",
        "todo__done",
      ]);
      const listed = structured<{ tasks: Array<{ id: string }> }>(
        await own.callTool({ name: "todo__list", arguments: {} }),
        "todo__list",
      );
      expect(listed.tasks.map((task) => task.id)).toContain(added.id);
    } finally {
      await own.close();
    }
    const invalid = await mcp.callTool({ name: "todo__add", arguments: { text: "" } });
    expect(invalid.isError).toBe(true);
    expect((invalid.structuredContent as { error: { code: string } }).error.code).toBe("validation_error");
  });

  it("journals a destroyed sandbox's session into memory, which recall finds", async () => {
    const sandboxId = await runSession(api, "journal_probe.py");
    // The journal's last write is the session's summary in its store: once listed, every memory is in.
    const recent = await eventually(async () => {
      const listed = await api.post("/v1/tools/session-journal.recent", { limit: 5 });
      return (listed.body.sessions as unknown[]).length > 0 ? listed.body.sessions : undefined;
    });
    expect(recent).toEqual([
      expect.objectContaining({
        sandbox_id: sandboxId,
        commands: 2,
        failed_commands: 1,
        files: ["src/journal_probe.py"],
      }),
    ]);
    const summary = await recalled(api, "what did the last session do");
    expect(summary[0].content).toContain(`Last session journal: sandbox session ${sandboxId}`);
    const byFile = await recalled(api, "journal_probe.py");
    expect(byFile.map((memory) => memory.content)).toContainEqual(
      expect.stringContaining("src/journal_probe.py was created"),
    );
    const byCommand = await recalled(api, "exit 4");
    expect(byCommand.map((memory) => memory.content)).toContainEqual(
      expect.stringContaining("`sh -c 'exit 4'` exited with code 4"),
    );
    const overMcp = structured<{ sessions: Array<{ sandbox_id: string }> }>(
      await (mcp as Client).callTool({ name: "session_journal__recent", arguments: {} }),
      "session_journal__recent",
    );
    expect(overMcp.sessions[0].sandbox_id).toBe(sandboxId);
  }, 60_000);
});

describe("the session journal across a crash between destroy and delivery", () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-plugins-crash-"));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("delivers the destroyed event after a SIGKILL and a restart", async () => {
    const [node] = serverRuntimes;
    const environment = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn", SVC_PLUGINS: plugins };
    // Delivery held back an hour: the event is queued, not delivered, when the server dies.
    server = await startServer(node.command, node.args, {
      ...environment,
      SVC_PLUGIN_EVENT_DELAY_SECONDS: "3600",
    });
    const { key } = await signUpWithKey(server.baseUrl);
    let api = client(server.baseUrl, key);
    const sandboxId = await runSession(api, "crash_probe.py");
    expect(await recalled(api, "crash_probe.py")).toEqual([]);
    const exited = new Promise((resolvePromise) => server?.process.once("exit", resolvePromise));
    server.process.kill("SIGKILL");
    await exited;

    server = await startServer(node.command, node.args, environment);
    api = client(server.baseUrl, key);
    await journaled(api, sandboxId, "crash_probe.py", "src/crash_probe.py was created");
  }, 90_000);

  it("queues the event of a session whose end was written just before a SIGKILL, at the restart", async () => {
    // The previous test's server (same data directory) stops first.
    await server?.stop();
    const [node] = serverRuntimes;
    const environment = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn", SVC_PLUGINS: plugins };
    server = await startServer(node.command, node.args, environment);
    const { key } = await signUpWithKey(server.baseUrl);
    let api = client(server.baseUrl, key);
    const created = await api.post("/v1/sandboxes", {});
    const sandboxId = created.body.id as string;
    await api.post(`/v1/sandboxes/${sandboxId}/files`, {
      path: "src/unqueued_probe.py",
      content: "print(2)\n",
    });
    const exited = new Promise((resolvePromise) => server?.process.once("exit", resolvePromise));
    server.process.kill("SIGKILL");
    await exited;
    // What the server had written when it died between a session's end and its event: the end,
    // with the promise of the event (one statement), and no event row.
    const database = new Database(join(dataDir, "cairn.db"));
    try {
      const ended = database
        .prepare(
          "update sandbox_sessions set status = 'destroyed', destroyed_at = created_at, ended_reason = 'destroyed', end_event_pending = 1 where id = ?",
        )
        .run(sandboxId);
      expect(ended.changes).toBe(1);
      expect(database.prepare("select count(*) as n from plugin_events").get()).toEqual({ n: 0 });
    } finally {
      database.close();
    }

    server = await startServer(node.command, node.args, environment);
    api = client(server.baseUrl, key);
    await journaled(api, sandboxId, "unqueued_probe.py", "src/unqueued_probe.py was created");
  }, 90_000);
});
