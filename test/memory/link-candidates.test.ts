/**
 * The rows relation detection compares a write with (`MemoryStore.recent`): for each scope asked,
 * its newest live rows up to the scope's limit, newest first, on both databases (PostgreSQL reads
 * every scope in one statement, SQLite one statement per scope).
 */
import { describe, expect, it } from "vitest";
import { memoryStoreUnderTest } from "../support/memory-store-tests.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets } from "../support/platforms.ts";

const start = Date.parse("2026-01-01T00:00:00Z");

const write = (content: string, scope: string, minute: number, expiresAt: Date | null = null) =>
  memoryWrite(content, scope, new Date(start + minute * 60_000), expiresAt);

describe.each(storageTargets)("relation detection's candidates on %s", (target) => {
  const store = memoryStoreUnderTest(target);

  it("answers each scope's newest live rows up to its own limit, newest first", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const other = await createAccountWithKey(store.test);
    const now = new Date(start + 60 * 60_000);
    // Written out of time order, so the answer's order is the rows' times, not their insertion.
    await store.memories.insertMany(accountId, [
      write("travel three", "travel", 3),
      write("travel one", "travel", 1),
      write("travel five", "travel", 5),
      write("travel two", "travel", 2),
      write("travel four", "travel", 4),
      write("travel gone", "travel", 6, new Date(start + 30 * 60_000)),
      write("work two", "work", 2),
      write("work one", "work", 1),
      write("hobby one", "hobby", 1),
    ]);
    await store.memories.insertMany(other.accountId, [write("travel elsewhere", "travel", 9)]);

    const recent = await store.memories.recent(
      accountId,
      new Map([
        ["travel", 3],
        ["work", 10],
        ["empty", 5],
      ]),
      now,
      Number.MAX_SAFE_INTEGER,
    );
    const contents = Object.fromEntries(
      [...recent].map(([scope, rows]) => [scope, rows.map((row) => row.content)]),
    );
    expect(contents).toEqual({
      travel: ["travel five", "travel four", "travel three"],
      work: ["work two", "work one"],
      empty: [],
    });
    const [newest] = recent.get("travel") ?? [];
    expect(newest.updatedAt.toISOString()).toBe(new Date(start + 5 * 60_000).toISOString());
    expect(newest.supersededAt).toBeNull();
  });
});
