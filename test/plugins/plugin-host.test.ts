/**
 * The plugin host in process, on both databases (docs/plugins.md): plugin tools on their own
 * routes and POST /v1/tools/{name} with the built-ins' pipeline (credential, declared bucket and
 * its SVC_ override, validation), tenancy of the plugin context (memory and store), and hooks:
 * delivered with the event's own account, retried with backoff when they throw, never failing
 * the request that caused them.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../core/index.ts";
import { eventually } from "../support/eventually.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

const fixtures = join(import.meta.dirname, "fixtures");
const examples = join(import.meta.dirname, "../../examples/plugins");

/** A logger that keeps what it is told, to see the host's retries. */
function capturingLogger() {
  const lines: Array<{ level: string; message?: string; [key: string]: unknown }> = [];
  const logger = (bindings: Record<string, unknown>): Logger => ({
    debug: (object, message) => lines.push({ level: "debug", message, ...bindings, ...object }),
    info: (object, message) => lines.push({ level: "info", message, ...bindings, ...object }),
    warn: (object, message) => lines.push({ level: "warn", message, ...bindings, ...object }),
    error: (object, message) => lines.push({ level: "error", message, ...bindings, ...object }),
    child: (more) => logger({ ...bindings, ...more }),
  });
  return { lines, logger: logger({}) };
}

describe.each(storageTargets)("the plugin host on %s", (target) => {
  let test: TestPlatform;
  let alice: string;
  let bob: string;
  const captured = capturingLogger();
  beforeAll(async () => {
    test = await createTestPlatform(target, {
      logger: captured.logger,
      environment: {
        SVC_PLUGINS: [join(examples, "todo"), join(fixtures, "probe")].join(","),
        SVC_PLUGIN_TODO_TODO_OPS_RATE_LIMIT_PER_MINUTE: "25",
      },
    });
    alice = (await createAccountWithKey(test)).key;
    bob = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test?.close());

  const post = async (path: string, json: unknown, credential: string | undefined) => {
    const response = await test.request(path, { method: "POST", json, credential });
    // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field; the assertions check their shape.
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  it("lists plugin tools after the built-ins, with their plugin, bindings and schemas", async () => {
    const { tools } = (await (await test.request("/v1/tools", { credential: alice })).json()) as {
      tools: Array<{
        name: string;
        plugin: string | null;
        mcp_name: string | null;
        http: unknown;
        group: string;
      }>;
    };
    const pluginTools = tools.filter((tool) => tool.plugin !== null);
    expect(pluginTools.map((tool) => tool.name)).toEqual([
      "todo.add",
      "todo.list",
      "todo.done",
      "probe.recall",
      "probe.get_memory",
      "probe.put",
      "probe.read",
    ]);
    expect(tools.indexOf(pluginTools[0])).toBe(tools.length - pluginTools.length);
    expect(pluginTools[0]).toMatchObject({
      plugin: "todo",
      group: "plugins",
      mcp_name: "todo__add",
      http: { method: "POST", path: "/v1/plugins/todo/add" },
    });
    const openapi = (await (await test.request("/v1/openapi.json")).json()) as {
      paths: Record<string, { post?: Record<string, unknown> }>;
    };
    expect(openapi.paths["/v1/plugins/todo/add"].post).toMatchObject({
      operationId: "todo.add",
      "x-rate-limit-bucket": "todo.todo_ops",
      "x-mcp-tool": "todo__add",
    });
  });

  it("serves a plugin tool on its own route and by name, with its declared bucket and the operator's limit", async () => {
    const added = await post("/v1/plugins/todo/add", { text: "Rotate the staging keys" }, alice);
    expect(added.status).toBe(200);
    expect(added.headers.get("X-RateLimit-Limit")).toBe("25");
    expect(added.body).toMatchObject({ text: "Rotate the staging keys", done: false });
    const listed = await post("/v1/tools/todo.list", {}, alice);
    expect(listed.status).toBe(200);
    expect(listed.body.tasks.map((task: { id: string }) => task.id)).toEqual([added.body.id]);
    const done = await post("/v1/tools/todo.done", { id: added.body.id }, alice);
    expect(done.body).toMatchObject({ id: added.body.id, done: true });
    const open = await post("/v1/plugins/todo/list", {}, alice);
    expect(open.body.tasks).toEqual([]);
  });

  it("refuses a plugin tool without an API key, and reports bad input where it was sent", async () => {
    const anonymous = await post("/v1/plugins/todo/add", { text: "x" }, undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("missing_credentials");
    const invalid = await post("/v1/plugins/todo/add", { text: "" }, alice);
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details[0].loc).toEqual(["body", "text"]);
    const unknown = await post("/v1/tools/todo.nothing", {}, alice);
    expect(unknown.status).toBe(404);
    const unknownRoute = await post("/v1/plugins/todo/nothing", {}, alice);
    expect(unknownRoute.status).toBe(404);
  });

  it("keeps each account's plugin store apart", async () => {
    const mine = await post("/v1/plugins/todo/add", { text: "Alice's private task" }, alice);
    const theirs = await post("/v1/plugins/todo/list", { include_done: true }, bob);
    expect(theirs.body.tasks).toEqual([]);
    // Bob names Alice's task id: his store has no such key.
    const stolen = await post("/v1/plugins/todo/done", { id: mine.body.id }, bob);
    expect(stolen.status).toBe(404);
    const written = await post("/v1/plugins/probe/put", { key: "shared-name", value: { owner: "bob" } }, bob);
    expect(written.status).toBe(200);
    const read = await post("/v1/plugins/probe/read", { key: "shared-name" }, alice);
    expect(read.body.entries).toEqual([]);
    // The same plugin's store of another plugin is not its own either: probe cannot see todo's keys.
    const other = await post("/v1/plugins/probe/read", { prefix: "task:" }, alice);
    expect(other.body.entries).toEqual([]);
  });

  it("refuses store values past the bound with a clear error", async () => {
    const large = await post("/v1/plugins/probe/put", { key: "large", value: "x".repeat(70_000) }, alice);
    expect(large.status).toBe(413);
    expect(large.body.error.code).toBe("payload_too_large");
    expect(large.body.error.message).toContain("65536 bytes");
    const badKey = await post("/v1/plugins/probe/put", { key: "", value: 1 }, alice);
    expect(badKey.status).toBe(422);
  });

  it("reads memory through the context for the calling account only", async () => {
    const remembered = await post(
      "/v1/memory",
      { content: "Alice deploys with blue-green releases." },
      alice,
    );
    expect(remembered.status).toBe(201);
    const own = await post("/v1/plugins/probe/recall", { q: "blue-green releases" }, alice);
    expect(own.body.ids).toContain(remembered.body.id);
    const foreign = await post("/v1/plugins/probe/recall", { q: "blue-green releases" }, bob);
    expect(foreign.body.ids).toEqual([]);
    const direct = await post("/v1/plugins/probe/get_memory", { memory_id: remembered.body.id }, bob);
    expect(direct.status).toBe(404);
    expect(
      (await post("/v1/plugins/probe/get_memory", { memory_id: remembered.body.id }, alice)).status,
    ).toBe(200);
  });

  it("delivers memory.remembered with the event's own account, never another's", async () => {
    const ofAlice = await post("/v1/memory", { content: "Alice prefers tabs over spaces." }, alice);
    const ofBob = await post("/v1/memory", { content: "Bob prefers spaces over tabs." }, bob);
    const seenByAlice = await eventually(async () => {
      const read = await post("/v1/plugins/probe/read", { key: `seen:${ofAlice.body.id}` }, alice);
      return read.body.entries[0]?.value;
    });
    const aliceAccount = (await (await test.request("/v1/account", { credential: alice })).json()) as {
      id: string;
    };
    expect(seenByAlice).toMatchObject({
      context_account: aliceAccount.id,
      event_account: aliceAccount.id,
      version: 1,
    });
    const seenByBob = await eventually(async () => {
      const read = await post("/v1/plugins/probe/read", { key: `seen:${ofBob.body.id}` }, bob);
      return read.body.entries[0]?.value;
    });
    expect(seenByBob.context_account).toBe(seenByBob.event_account);
    expect(seenByBob.context_account).not.toBe(aliceAccount.id);
    // Bob's delivery wrote nothing into Alice's store.
    const inAlices = await post("/v1/plugins/probe/read", { key: `seen:${ofBob.body.id}` }, alice);
    expect(inAlices.body.entries).toEqual([]);
  });

  it("retries a hook that throws, with backoff, while the request that caused it succeeded", async () => {
    const remembered = await post(
      "/v1/memory",
      { content: "flaky: the hook fails twice for this memory." },
      alice,
    );
    expect(remembered.status).toBe(201);
    const seen = await eventually(async () => {
      const read = await post("/v1/plugins/probe/read", { key: `seen:${remembered.body.id}` }, alice);
      return read.body.entries[0]?.value;
    });
    expect(seen.attempts).toBe(3);
    const retries = captured.lines.filter(
      (line) => line.message === "plugin hook failed; will retry" && line.eventId !== undefined,
    );
    const forThisMemory = retries.filter((line) =>
      String((line.err as Error).message).startsWith("flaky hook"),
    );
    expect(forThisMemory.map((line) => [line.plugin, line.event, line.attempt, line.retryInSeconds])).toEqual(
      [
        ["probe", "memory.remembered", 1, 1],
        ["probe", "memory.remembered", 2, 2],
      ],
    );
    expect(await test.platform.storage.pluginEvents.count()).toBe(0);
    expect(await (await test.request("/metrics")).text()).toMatch(/^cairn_plugin_events_queued 0$/m);
  });

  it("takes tokens from the plugin's bucket, shared by its tools, and names it when it refuses", async () => {
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    for (let attempt = 0; attempt < 30 && !refused; attempt++) {
      const response = await post("/v1/plugins/todo/list", {}, bob);
      if (response.status === 429) refused = response;
    }
    expect(refused?.body.error).toMatchObject({
      code: "rate_limited",
      details: { bucket: "todo.todo_ops", limit: 25 },
    });
    // Alice's bucket is her own.
    expect((await post("/v1/plugins/todo/list", {}, alice)).status).toBe(200);
  });
});
