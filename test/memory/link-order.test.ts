/**
 * Relation detection over queued writes in one link run (`linkQueued`): each job links as of the
 * moment it was written, so a memory stated again after a newer one updated it is current again,
 * and the two never supersede each other. On both databases, through the real memory store.
 */
import { describe, expect, it } from "vitest";
import { linkQueued, prepareMemories, writeMemories } from "../../core/memory/write-memory.ts";
import { memoryStoreUnderTest } from "../support/memory-store-tests.ts";
import { factInput } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets } from "../support/platforms.ts";

const start = Date.parse("2026-01-01T00:00:00Z");

describe.each(storageTargets)("one link run's supersessions on %s", (target) => {
  const store = memoryStoreUnderTest(target);

  it("lets the last statement win when a superseded memory is stated again before the run", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const write = async (content: string, minute: number) => {
      const now = new Date(start + minute * 60_000);
      const [prepared] = await prepareMemories([factInput(content, "order")], now);
      const {
        ids: [id],
      } = await store.memories.transaction((memories) => writeMemories(memories, accountId, [prepared], now));
      return id;
    };
    const postgres = await write("Alpha service runs Postgres", 1);
    const mysql = await write("Alpha service runs MySQL now", 2);
    expect(await write("Alpha service runs Postgres", 3)).toBe(postgres);

    // The three writes are linked in one run, as after a restart or under load.
    await store.memories.transaction(async (memories) => {
      const jobs = await memories.linkJobs(accountId, 500);
      expect(jobs.map((job) => job.memoryId)).toEqual([postgres, mysql, postgres]);
      await linkQueued(memories, accountId, jobs);
      await memories.completeLinks(
        accountId,
        jobs.map((job) => job.seq),
      );
    });
    const [first, second] = await store.memories.getAnyMany(accountId, [postgres, mysql]);
    const rows = new Map([first, second].map((row) => [row.id, row]));
    expect(rows.get(postgres)?.supersededById).toBeNull();
    expect(rows.get(mysql)?.supersededById).toBe(postgres);
  });
});
