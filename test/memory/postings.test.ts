/**
 * Whole postings lists (`MemoryStore.postings` without ids, and `postingLists`, the columns
 * recall keeps in memory for a long list), and the short lists read with the terms' statistics,
 * hold exactly the postings the per-id lookup finds, in every scope or one, on both databases
 * (PostgreSQL sends a list as one string per term and scope).
 */
import { describe, expect, it } from "vitest";
import type { MemoryStore, Posting } from "../../core/index.ts";
import { recallMemories } from "../../core/memory/index.ts";
import { sql } from "../../plugins/storage/sql-statement.ts";
import { memoryStoreUnderTest, withOwnPostgresStore } from "../support/memory-store-tests.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets } from "../support/platforms.ts";

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** The rows an analysed plan read from `relation`, over every node that scans it. */
const rowsReadFrom = (node: PlanNode, relation: string): number =>
  (node["Relation Name"] === relation ? (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1) : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, relation), 0);

const sorted = (postings: Posting[]) =>
  postings.toSorted((first, second) =>
    `${first.term} ${first.memoryId}` < `${second.term} ${second.memoryId}` ? -1 : 1,
  );

describe.each(storageTargets)("whole postings lists on %s", (target) => {
  const store = memoryStoreUnderTest(target);

  it("hold what the per-id lookup finds: every posting, its scope, count and length", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const other = await createAccountWithKey(store.test);
    // Scopes with spaces and other characters a list's text must not split on.
    const scopes = ["default", "my project 2", "plans, ideas; notes ⟂"];
    const writes = Array.from({ length: 60 }, (_, index) =>
      memoryWrite(
        `harbour ${"lantern ".repeat(1 + (index % 4))}note ${index} ${index % 3 === 0 ? "harbour" : ""}`,
        scopes[index % scopes.length],
      ),
    );
    const rows = await store.memories.insertMany(accountId, writes);
    await store.memories.insertMany(other.accountId, [memoryWrite("harbour lantern elsewhere")]);
    const ids = rows.map((row) => row.id);
    const terms = ["harbour", "lantern", "absent"];

    const whole = await store.memories.postings(accountId, { terms });
    expect(whole).toHaveLength(120);
    // The same postings as columns, a list per term asked for (an empty one for a term no row
    // holds).
    const lists = await store.memories.postingLists(accountId, terms);
    expect([...lists.keys()].toSorted()).toEqual(terms.toSorted());
    expect(lists.get("absent")?.memoryIds).toEqual([]);
    const fromColumns = [...lists].flatMap(([term, list]) =>
      list.memoryIds.map((memoryId, index) => ({
        term,
        memoryId,
        scope: list.scopes[index],
        frequency: list.frequencies[index],
        length: list.lengths[index],
      })),
    );
    expect(sorted(fromColumns)).toEqual(sorted(whole));
    expect(sorted(whole)).toEqual(
      sorted(await store.memories.postings(accountId, { terms, memoryIds: ids })),
    );
    // An id listed twice brings its postings once.
    expect(sorted(whole)).toEqual(
      sorted(await store.memories.postings(accountId, { terms, memoryIds: [...ids, ...ids.slice(0, 5)] })),
    );
    expect(new Set(whole.map((posting) => posting.scope))).toEqual(new Set(scopes));
    // A memory with "lantern" three times: its count and its indexed length come through.
    const thrice = whole.find((posting) => posting.term === "lantern" && posting.memoryId === ids[2]);
    expect(thrice).toMatchObject({ frequency: 3, scope: scopes[2] });
    expect(thrice?.length).toBeGreaterThan(3);

    // The short lists that come with the terms' statistics: the same postings.
    const statistics = await store.memories.termStatistics(accountId, terms, { rows: 1000 });
    expect(sorted(statistics.shortPostings)).toEqual(sorted(whole));
    const scopedStatistics = await store.memories.termStatistics(accountId, terms, {
      rows: 1000,
      scope: scopes[1],
    });
    expect(sorted(scopedStatistics.shortPostings)).toEqual(
      sorted(whole.filter((posting) => posting.scope === scopes[1])),
    );

    const scoped = await store.memories.postings(accountId, { terms, scope: scopes[2] });
    expect(scoped).toHaveLength(40);
    expect(sorted(scoped)).toEqual(
      sorted(await store.memories.postings(accountId, { terms, scope: scopes[2], memoryIds: ids })),
    );
  });

  it("looks up any number of candidate rows in one call, each row's postings once", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const rows = await store.memories.insertMany(
      accountId,
      Array.from({ length: 1_200 }, (_, index) =>
        memoryWrite(`beacon ${index % 2 === 0 ? "tide " : ""}row ${index}`),
      ),
    );
    const ids = rows.map((row) => row.id);
    const terms = ["beacon", "tide"];
    const whole = await store.memories.postings(accountId, { terms });
    expect(whole).toHaveLength(1_800);
    // More ids than one IN list takes on SQLite, some listed again past its first 500.
    const looked = await store.memories.postings(accountId, {
      terms,
      memoryIds: [...ids, ...ids.slice(0, 700)],
    });
    expect(sorted(looked)).toEqual(sorted(whole));
    const some = ids.filter((_, index) => index % 3 === 0);
    expect(sorted(await store.memories.postings(accountId, { terms, memoryIds: some }))).toEqual(
      sorted(whole.filter((posting) => some.includes(posting.memoryId))),
    );
  });

  it("reads every long list a recall lacks in one statement, and keeps them", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    await store.memories.insertMany(
      accountId,
      Array.from({ length: 12 }, (_, index) =>
        memoryWrite(`amber basalt ${index % 2 === 0 ? "cobalt" : "dune"} note ${index}`),
      ),
    );
    const reads: Array<readonly string[]> = [];
    const recording: MemoryStore = {
      ...store.memories,
      postingLists(account, terms) {
        reads.push(terms);
        return store.memories.postingLists(account, terms);
      },
    };
    // Terms in 2 rows or more have long lists here (a quarter of the common-term bar).
    const request = { query: "amber basalt cobalt", limit: 5, now: new Date(), commonTermRows: 8 };
    const ranked = async () =>
      ((await recallMemories(recording, accountId, request)) ?? []).map(({ record, score }) => [
        record.id,
        score,
      ]);
    // The first recall at a version keeps nothing; the second reads the three long lists at once;
    // the third reads none. All three answer alike.
    const first = await ranked();
    reads.length = 0;
    expect(await ranked()).toEqual(first);
    expect(reads.map((terms) => terms.toSorted())).toEqual([["amber", "basalt", "cobalt"]]);
    reads.length = 0;
    expect(await ranked()).toEqual(first);
    expect(reads).toEqual([]);
    expect(first).toHaveLength(5);
  });

  if (target === "postgresql")
    it("reads an account's short lists by their terms, though the statistics have not seen the account", async () => {
      await withOwnPostgresStore(async (own, { bound, statements, recording }) => {
        const words = (index: number) =>
          Array.from({ length: 6 }, (_, word) => `w${(index * 7 + word * 13) % 997}`).join(" ");
        const older = await createAccountWithKey(own);
        await own.platform.storage.memories.insertMany(
          older.accountId,
          Array.from({ length: 1_500 }, (_, index) => memoryWrite(`older ${words(index)}`)),
        );
        // The statistics know the older account only, as after a large table's last analysis.
        await bound.execute("analyze memory_postings, memory_terms");
        const { accountId } = await createAccountWithKey(own);
        await own.platform.storage.memories.insertMany(
          accountId,
          Array.from({ length: 400 }, (_, index) =>
            memoryWrite(`${index % 100 === 0 ? "quokka " : ""}newer ${words(index)}`),
          ),
        );
        const statistics = await recording.termStatistics(accountId, ["quokka", "absent"], { rows: 1000 });
        expect(statistics.shortPostings.map((posting) => posting.term)).toEqual(Array(4).fill("quokka"));
        expect(statements).toHaveLength(1);
        const [{ "QUERY PLAN": plan }] = await bound.execute(
          sql`explain (analyze, format json) ${statements[0].statement}`,
        );
        // The four postings of the term asked for, not the account's 3,000 others.
        expect(rowsReadFrom((plan as Array<{ Plan: PlanNode }>)[0].Plan, "memory_postings")).toBe(4);
      });
    });
});
