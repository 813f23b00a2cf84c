/**
 * Forget at the byte level, in the smallest setting: a fresh data directory, one remember of a
 * distinctive word, one forget. Then on SQLite (after a WAL checkpoint) no file under the data
 * directory holds the word; on PostgreSQL (after VACUUM FULL and a checkpoint) no file of the
 * database's tables and indexes holds it. Each check first proves it can see the word.
 */
import { describe, expect, it } from "vitest";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";
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
});
