/**
 * `memory.remembered` is at least once across a crash: the event is queued from the write's
 * relation-detection job (committed with the memory), before that job leaves the queue. A server
 * killed after committing a remember but before anything else (the memory and its job in the
 * database, no event row, no delivery) queues and delivers the event when it starts again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");
const probe = join(import.meta.dirname, "fixtures/probe");

async function post(baseUrl: string, path: string, key: string, body: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("memory.remembered across a crash between the remember and its event", () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-remembered-crash-"));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("queues and delivers the event at the restart", async () => {
    const environment = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn", SVC_PLUGINS: probe };
    server = await startServer(process.execPath, [entry], environment);
    const { key } = await signUpWithKey(server.baseUrl);
    const remembered = await post(server.baseUrl, "/v1/memory", key, {
      content: "The crash probe remembers the blue deploy key.",
    });
    expect(remembered.status).toBe(201);
    const memoryId = remembered.body.id as string;
    const exited = new Promise((resolve) => server?.process.once("exit", resolve));
    server.process.kill("SIGKILL");
    await exited;

    // The state a crash right after the remember's commit leaves: the memory with its queued job,
    // no event row and no delivery (whatever this run managed before the kill is taken back).
    const database = new Database(join(dataDir, "cairn.db"));
    try {
      database.prepare("delete from plugin_events").run();
      database.prepare("delete from plugin_store where plugin = 'probe'").run();
      const queued = database
        .prepare("select count(*) as total from memory_link_jobs where memory_id = ?")
        .get(memoryId) as { total: number };
      if (queued.total === 0)
        database
          .prepare(
            "insert into memory_link_jobs (account_id, memory_id, batch_id, inserted, enqueued_at) select account_id, id, null, 1, created_at from memories where id = ?",
          )
          .run(memoryId);
    } finally {
      database.close();
    }

    server = await startServer(process.execPath, [entry], environment);
    const baseUrl = server.baseUrl;
    const seen = await eventually(async () => {
      const read = await post(baseUrl, "/v1/plugins/probe/read", key, { key: `seen:${memoryId}` });
      return (read.body.entries as Array<{ value: Record<string, unknown> }>)[0]?.value;
    });
    expect(seen).toMatchObject({ context_account: seen.event_account, attempts: 1 });
  }, 60_000);
});
