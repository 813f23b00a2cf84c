/**
 * `kill -9` of the real server in the middle of a storm of writes, on both databases: every
 * remember the server acknowledged is there after a restart and its queued relation detection
 * completes (the `relations` route shows each update edge, the older memory is superseded), and in
 * the embeddings run its vectors are computed too; an import the crash interrupts is all or
 * nothing (a batch is stored whole or not at all). Extends crash-durability.test.ts from one write
 * to many in flight at once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createTestDatabase,
  embeddingsEnvironment,
  embeddingsMode,
  type StorageTarget,
  storageTargets,
} from "../support/platforms.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

interface Sent {
  status: number;
  body: { id?: string; memories?: Array<{ id: string }> };
}

async function send(url: string, key: string, init: { method?: string; json?: unknown } = {}): Promise<Sent> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: response.status, body: (await response.json()) as Sent["body"] };
}

/** A fetch the crash may cut: its answer, or null when the connection died first. */
const settled = (answer: Promise<Sent>) => answer.catch(() => null);

async function withServerData(
  target: StorageTarget,
  work: (start: () => Promise<RunningServer>) => Promise<void>,
) {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-crash-storm-"));
  const database = target === "postgresql" ? await createTestDatabase() : undefined;
  const environment = {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "warn",
    // The storm is not about rate limits.
    SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000",
    ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    ...(await embeddingsEnvironment()),
  };
  const servers: RunningServer[] = [];
  try {
    await work(async () => {
      const server = await startServer(process.execPath, [entry], environment);
      servers.push(server);
      return server;
    });
  } finally {
    for (const server of servers) await server.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function killNow(server: RunningServer) {
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGKILL");
  await exited;
}

/** Polls `check` (bounded) until it holds; background work after a restart takes a moment. */
async function eventually(check: () => Promise<boolean>, attempts = 300): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

const projects = Array.from({ length: 40 }, (_, index) => `Aurora${index}`);

describe.each(storageTargets)("kill -9 under load on %s", (target: StorageTarget) => {
  it("keeps every acknowledged remember of a storm, and finishes its relation work after the restart", async () => {
    await withServerData(target, async (start) => {
      const first = await start();
      const { key } = await signUpWithKey(first.baseUrl);
      // Each project in a scope of its own, so its two writes are each other's only candidates.
      const remember = (project: string, content: string) =>
        settled(
          send(`${first.baseUrl}/v1/memory`, key, { method: "POST", json: { scope: project, content } }),
        );
      const acknowledged = new Map<string, { old?: string; latest?: string }>();
      let answered = 0;
      const killed = new Promise<void>((resolve) => {
        const storm = projects.map(async (project) => {
          const old = await remember(project, `The ${project} launch window is in March.`);
          if (old?.status !== 201) return;
          acknowledged.set(project, { old: old.body.id });
          const latest = await remember(project, `The ${project} launch window is now in May.`);
          if (latest?.status === 201) acknowledged.set(project, { old: old.body.id, latest: latest.body.id });
          // The crash comes in the middle: once half the projects have both writes answered.
          if (++answered === projects.length / 2) resolve();
        });
        void Promise.all(storm).then(() => resolve());
      });
      await killed;
      await killNow(first);

      const second = await start();
      const get = (path: string) => send(`${second.baseUrl}${path}`, key);
      const pairs = [...acknowledged.values()].filter((pair) => pair.latest !== undefined);
      expect(pairs.length).toBeGreaterThanOrEqual(projects.length / 2);
      for (const { old, latest } of acknowledged.values()) {
        expect((await get(`/v1/memory/${old}`)).status).toBe(200);
        if (latest) expect((await get(`/v1/memory/${latest}`)).status).toBe(200);
      }
      for (const { old, latest } of pairs) {
        expect((await get(`/v1/memory/${latest}/relations`)).body).toMatchObject({
          relations: [{ source_memory_id: latest, target_memory_id: old, relation_type: "updates" }],
        });
        expect((await get(`/v1/memory/${old}`)).body).toMatchObject({ superseded_by_id: latest });
      }
      // With semantic search on, every stored memory gets its vector after the restart too.
      if (embeddingsMode) {
        const covered = await eventually(async () => {
          const metrics = (await get("/v1/memory/metrics")).body as { embedding_coverage?: number };
          return metrics.embedding_coverage === 1;
        });
        expect(covered).toBe(true);
      }
    });
  });

  it("stores an import the crash interrupts whole or not at all", async () => {
    await withServerData(target, async (start) => {
      const first = await start();
      const { key } = await signUpWithKey(first.baseUrl);
      const size = 500;
      const batches = Array.from({ length: 6 }, (_, batch) => `import-${batch}`);
      // Six imports of 500 at once, and the crash as soon as the first is answered: the others are
      // somewhere between not started and committed.
      const answers = new Map<string, Sent | null>();
      const firstAnswer = new Promise<void>((resolve) => {
        for (const scope of batches) {
          const memories = Array.from({ length: size }, (_, index) => ({
            scope,
            content: `Ledger line ${index} of ${scope} settles account ${index * 7}.`,
          }));
          void settled(
            send(`${first.baseUrl}/v1/memory/import`, key, { method: "POST", json: { memories } }),
          ).then((answer) => {
            answers.set(scope, answer);
            if (answer?.status === 201) resolve();
          });
        }
      });
      await firstAnswer;
      await killNow(first);

      const second = await start();
      const stored: Record<string, number> = {};
      for (const scope of batches) {
        const metrics = await send(`${second.baseUrl}/v1/memory/metrics?scope=${scope}`, key);
        stored[scope] = (metrics.body as { total_memories: number }).total_memories;
      }
      for (const scope of batches) {
        const acknowledged = answers.get(scope)?.status === 201;
        expect([scope, acknowledged ? stored[scope] : [0, size].includes(stored[scope])]).toEqual([
          scope,
          acknowledged ? size : true,
        ]);
      }
    });
  });
});
