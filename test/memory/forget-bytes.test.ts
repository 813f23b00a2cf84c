/**
 * Forget at the byte level, in the smallest setting: a fresh data directory, one remember of a
 * distinctive word, one forget. Then on SQLite (after a WAL checkpoint) no file under the data
 * directory holds the word; on PostgreSQL (after VACUUM FULL and a checkpoint) no file of the
 * database's tables and indexes holds it. Each check first proves it can see the word. A running
 * server (`npm start`) empties SQLite's log by itself just after a forget, with nobody asking for
 * a checkpoint.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";
import { signUpWithKey, startServer } from "../support/processes.ts";
import { filesHolding, filesUnder, postgresRelationFiles } from "../support/stored-files.ts";

/**
 * VACUUM FULL keeps a deleted row while any transaction of the cluster may still see it, and the
 * other suites run beside this one on the same cluster: the rewrite is repeated until the horizon
 * has passed the row (at most 30 times, a second apart), so the check waits out concurrency, not
 * a leak.
 */
async function filesAfterForget(
  test: TestPlatform,
  word: string,
): Promise<{ files: string[]; holding: string[] }> {
  for (let attempt = 1; ; attempt++) {
    const files = await postgresRelationFiles(test.databaseUrl);
    const holding = await filesHolding(files, word);
    if (holding.length === 0 || attempt === 30) return { files, holding };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The files under `dataDir` still holding `word` once none does, or after 10 s (which only
 * bound a failing run). */
async function wordLeaves(dataDir: string, word: string): Promise<string[]> {
  let holding = await filesHolding(await filesUnder(dataDir), word);
  for (let attempt = 0; holding.length > 0 && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    holding = await filesHolding(await filesUnder(dataDir), word);
  }
  return holding;
}

async function rememberAndForget(test: TestPlatform, word: string, keep: string) {
  const { key } = await createAccountWithKey(test);
  const remember = (content: string) =>
    test.request("/v1/memory", { method: "POST", credential: key, json: { content } });
  const kept = await remember(`The greenhouse log mentions ${keep} twice a week.`);
  expect(kept.status).toBe(201);
  const created = await remember(`The vault code word is ${word}, tell nobody.`);
  const { id } = (await created.json()) as { id: string };
  return async () => {
    const forgotten = await test.request(`/v1/memory/${id}`, { method: "DELETE", credential: key });
    expect(forgotten.status).toBe(204);
  };
}

describe("forget leaves no byte behind", () => {
  it("on SQLite: no file under the data directory holds the word after a checkpoint", async () => {
    const test = await createTestPlatform("sqlite");
    try {
      const word = `zqxbytes${crypto.randomUUID().slice(0, 8)}`;
      const keep = `zqxkept${crypto.randomUUID().slice(0, 8)}`;
      const forget = await rememberAndForget(test, word, keep);
      const checkpoint = () => test.platform.storage.execute("pragma wal_checkpoint(TRUNCATE)");
      await checkpoint();
      expect((await filesHolding(await filesUnder(test.dataDir), word)).length).toBeGreaterThan(0);
      await forget();
      await checkpoint();
      const files = await filesUnder(test.dataDir);
      expect(await filesHolding(files, word)).toEqual([]);
      expect((await filesHolding(files, keep)).length).toBeGreaterThan(0);
    } finally {
      await test.close();
    }
  });

  it("on PostgreSQL: no table or index file holds the word after VACUUM FULL", async () => {
    const test = await createTestPlatform("postgresql");
    try {
      const word = `zqxbytes${crypto.randomUUID().slice(0, 8)}`;
      const keep = `zqxkept${crypto.randomUUID().slice(0, 8)}`;
      const forget = await rememberAndForget(test, word, keep);
      expect(
        (await filesHolding(await postgresRelationFiles(test.databaseUrl), word)).length,
      ).toBeGreaterThan(0);
      await forget();
      const { files, holding } = await filesAfterForget(test, word);
      expect(holding).toEqual([]);
      expect((await filesHolding(files, keep)).length).toBeGreaterThan(0);
    } finally {
      await test.close();
    }
  });

  it("on SQLite without search threads (as Deno runs it): the word leaves every file just after the forget, with no checkpoint asked for", async () => {
    const test = await createTestPlatform("sqlite");
    try {
      const word = `zqxinline${crypto.randomUUID().slice(0, 8)}`;
      const forget = await rememberAndForget(test, word, `zqxkeptinline${crypto.randomUUID().slice(0, 8)}`);
      expect(await filesHolding(await filesUnder(test.dataDir), word)).toEqual([
        join(test.dataDir, "cairn.db-wal"),
      ]);
      await forget();
      expect(await wordLeaves(test.dataDir, word)).toEqual([]);
    } finally {
      await test.close();
    }
  });

  it("on a running SQLite server: the word leaves every file soon after the forget, with no checkpoint asked for", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cairn-forget-live-"));
    const server = await startServer(
      process.execPath,
      [resolve(import.meta.dirname, "../../platform/serve.ts")],
      {
        SVC_DATA_DIR: dataDir,
        SVC_LOG_LEVEL: "warn",
      },
    );
    try {
      const { key } = await signUpWithKey(server.baseUrl, "forget-live@example.com");
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const word = `zqxlive${crypto.randomUUID().slice(0, 8)}`;
      const keep = `zqxkeptlive${crypto.randomUUID().slice(0, 8)}`;
      const remember = async (content: string) => {
        const response = await fetch(`${server.baseUrl}/v1/memory`, {
          method: "POST",
          headers,
          body: JSON.stringify({ content }),
        });
        expect(response.status).toBe(201);
        return ((await response.json()) as { id: string }).id;
      };
      await remember(`The greenhouse log mentions ${keep} twice a week.`);
      const id = await remember(`The vault code word is ${word}, tell nobody.`);
      // A quiet server's log is far below the size that starts a checkpoint: the word sits in it.
      expect(await filesHolding(await filesUnder(dataDir), word)).toEqual([join(dataDir, "cairn.db-wal")]);
      const forgotten = await fetch(`${server.baseUrl}/v1/memory/${id}`, { method: "DELETE", headers });
      expect(forgotten.status).toBe(204);
      // The checkpoint thread's next pass (every 200 ms) copies the log and the server empties it.
      expect(await wordLeaves(dataDir, word)).toEqual([]);
      expect(await filesHolding(await filesUnder(dataDir), keep)).toEqual([join(dataDir, "cairn.db")]);
      // The server still reads and writes as before.
      const search = await fetch(`${server.baseUrl}/v1/memory/search?q=greenhouse`, { headers });
      expect(((await search.json()) as { memories: unknown[] }).memories).toHaveLength(1);
      await remember("The greenhouse opens at nine.");
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
