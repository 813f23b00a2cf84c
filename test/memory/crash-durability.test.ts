/**
 * A write the server acknowledged survives `kill -9` of the server: a memory, its index entries
 * and its relation-detection job commit in one transaction before the answer goes out, and jobs
 * a crash leaves queued are linked when the server starts again (docs/memory.md#writes). The
 * real Node server, killed and started again on the same data, on both databases.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  createTestDatabase,
  embeddingsEnvironment,
  type StorageTarget,
  storageTargets,
} from "../support/platforms.ts";
import { signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

async function post(url: string, body: unknown, credential?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function get(url: string, key: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Link jobs still queued in the stopped server's database. */
async function queuedLinks(target: StorageTarget, dataDir: string, databaseUrl: string | undefined) {
  if (target === "sqlite") {
    const database = new Database(join(dataDir, "cairn.db"), { readonly: true });
    try {
      return (database.prepare("select count(*) as total from memory_link_jobs").get() as { total: number })
        .total;
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query("select count(*) as total from memory_link_jobs")).rows[0].total);
  } finally {
    await client.end();
  }
}

const projects = Array.from({ length: 60 }, (_, index) => `Zephyr${index}`);

describe.each(storageTargets)("crash durability on %s", (target: StorageTarget) => {
  it("keeps an acknowledged remember and its supersession after kill -9", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cairn-crash-"));
    const database = target === "postgresql" ? await createTestDatabase() : undefined;
    const environment = {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
      ...(await embeddingsEnvironment()),
    };
    try {
      const first = await startServer(process.execPath, [entry], environment);
      const { key } = await signUpWithKey(first.baseUrl, "crash@example.com");
      const old = await post(`${first.baseUrl}/v1/memory`, { content: "My favorite color is blue." }, key);
      const latest = await post(
        `${first.baseUrl}/v1/memory`,
        { content: "My favorite color is now green." },
        key,
      );
      expect(latest.status).toBe(201);
      // No shutdown of any kind: the process dies the moment the answer is in.
      const exited = new Promise((resolve) => first.process.once("exit", resolve));
      first.process.kill("SIGKILL");
      await exited;

      const second = await startServer(process.execPath, [entry], environment);
      try {
        expect((await get(`${second.baseUrl}/v1/memory/${latest.body.id}`, key)).status).toBe(200);
        const replaced = await get(`${second.baseUrl}/v1/memory/${old.body.id}`, key);
        expect(replaced.body.superseded_by_id).toBe(latest.body.id);
        const relations = await get(`${second.baseUrl}/v1/memory/${latest.body.id}/relations`, key);
        expect(relations.body.relations).toEqual([
          expect.objectContaining({ target_memory_id: old.body.id, relation_type: "updates" }),
        ]);
        const found = await get(`${second.baseUrl}/v1/memory/search?q=favorite%20color`, key);
        expect((found.body.memories as Array<{ id: string }>).map((row) => row.id)).toEqual([latest.body.id]);
      } finally {
        await second.stop();
      }
    } finally {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("links the writes a kill -9 left queued when the server starts again", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cairn-crash-"));
    const database = target === "postgresql" ? await createTestDatabase() : undefined;
    const environment = {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
      ...(await embeddingsEnvironment()),
    };
    try {
      const first = await startServer(process.execPath, [entry], environment);
      const { key } = await signUpWithKey(first.baseUrl, "queue@example.com");
      const before = await post(
        `${first.baseUrl}/v1/memory/import`,
        { memories: projects.map((name) => ({ content: `The Project ${name} deadline is Friday.` })) },
        key,
      );
      // A read links what the account wrote: the first batch is linked before the second comes.
      expect((await get(`${first.baseUrl}/v1/memory?limit=1`, key)).status).toBe(200);
      const after = await post(
        `${first.baseUrl}/v1/memory/import`,
        { memories: projects.map((name) => ({ content: `The Project ${name} deadline is now Monday.` })) },
        key,
      );
      expect(after.status).toBe(201);
      const exited = new Promise((resolve) => first.process.once("exit", resolve));
      first.process.kill("SIGKILL");
      await exited;
      // The answer went out before detection ran: the crash left its jobs queued.
      expect(await queuedLinks(target, dataDir, database?.url)).toBeGreaterThan(0);

      const second = await startServer(process.execPath, [entry], environment);
      try {
        expect(await queuedLinks(target, dataDir, database?.url)).toBe(0);
        const oldRows = before.body.memories as Array<{ id: string }>;
        const newRows = after.body.memories as Array<{ id: string }>;
        for (const [index, row] of oldRows.entries()) {
          const replaced = await get(`${second.baseUrl}/v1/memory/${row.id}`, key);
          expect(replaced.body.superseded_by_id, projects[index]).toBe(newRows[index].id);
        }
        const relations = await get(`${second.baseUrl}/v1/memory/${newRows[0].id}/relations?limit=100`, key);
        expect(relations.body.relations).toContainEqual(
          expect.objectContaining({ target_memory_id: oldRows[0].id, relation_type: "updates" }),
        );
      } finally {
        await second.stop();
      }
    } finally {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
