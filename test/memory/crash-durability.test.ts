/**
 * A remember the server acknowledged survives `kill -9` of the server, with the relations it was
 * acknowledged with: a memory, its index entries and its relation and supersession edges are
 * committed in one transaction before the answer goes out. The real Node server, killed and
 * started again on the same data, on both databases.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestDatabase, type StorageTarget, storageTargets } from "../support/platforms.ts";
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

describe.each(storageTargets)("crash durability on %s", (target: StorageTarget) => {
  it("keeps an acknowledged remember and its supersession after kill -9", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cairn-crash-"));
    const database = target === "postgresql" ? await createTestDatabase() : undefined;
    const environment = {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
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
});
