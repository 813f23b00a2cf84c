/**
 * An account's rows read by id (`getAnyMany`, `getMany`, `accessCounts`): an import reads back
 * its batch this way, relation detection its jobs' rows, recall its candidates. Each gives
 * exactly the account's rows among the ids, once each, on both databases; on PostgreSQL every id
 * goes through the primary key however many there are (as `id in (…)`, the planner scanned the
 * whole table for a few hundred ids, and an import batch took up to 800 ms at 30,000 rows).
 */
import { describe, expect, it } from "vitest";
import { sql } from "../../plugins/storage/sql-statement.ts";
import { memoryStoreUnderTest, withOwnPostgresStore } from "../support/memory-store-tests.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets } from "../support/platforms.ts";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

/** How a plan reads `relation`: the type of each node that scans it. */
const scansOf = (node: PlanNode, relation: string): string[] => [
  ...(node["Relation Name"] === relation ? [node["Node Type"]] : []),
  ...(node.Plans ?? []).flatMap((child) => scansOf(child, relation)),
];

describe.each(storageTargets)("rows by id on %s", (target) => {
  const store = memoryStoreUnderTest(target);

  it("gives the account's rows among the ids once each, and only live ones to getMany", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const other = await createAccountWithKey(store.test);
    const now = new Date();
    const [first, second, expired] = await store.memories.insertMany(accountId, [
      memoryWrite("first of two kept"),
      memoryWrite("second of two kept", "notes"),
      memoryWrite("expired a minute ago", "default", now, new Date(now.getTime() - 60_000)),
    ]);
    const [elsewhere] = await store.memories.insertMany(other.accountId, [memoryWrite("another account's")]);
    const asked = [second.id, first.id, second.id, expired.id, elsewhere.id, crypto.randomUUID()];
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id).sort();

    expect(ids(await store.memories.getAnyMany(accountId, asked))).toEqual(
      [first.id, second.id, expired.id].sort(),
    );
    const live = await store.memories.getMany(accountId, asked, now);
    expect(ids(live)).toEqual([first.id, second.id].sort());
    expect(live.find((row) => row.id === second.id)).toMatchObject({
      content: "second of two kept",
      scope: "notes",
    });
    expect(ids(await store.memories.accessCounts(accountId, asked))).toEqual(
      [first.id, second.id, expired.id].sort(),
    );
    expect(await store.memories.getAnyMany(accountId, [])).toEqual([]);
  });

  if (target === "postgresql")
    it("looks every id up by the primary key, even 500 of 2,000 rows", async () => {
      await withOwnPostgresStore(async (own, { bound, statements, recording }) => {
        const { accountId } = await createAccountWithKey(own);
        const rows = await own.platform.storage.memories.insertMany(
          accountId,
          Array.from({ length: 2000 }, (_, index) => memoryWrite(`row ${index} of the account`)),
        );
        await bound.execute("analyze memories");
        const ids = rows.slice(0, 500).map((row) => row.id);
        expect(await recording.getAnyMany(accountId, ids)).toHaveLength(500);
        expect(await recording.getMany(accountId, ids, new Date())).toHaveLength(500);
        expect(await recording.accessCounts(accountId, ids)).toHaveLength(500);
        expect(statements).toHaveLength(3);
        for (const { statement } of statements) {
          const [{ "QUERY PLAN": plan }] = await bound.execute(sql`explain (format json) ${statement}`);
          expect(scansOf((plan as Array<{ Plan: PlanNode }>)[0].Plan, "memories")).toEqual(["Index Scan"]);
        }
      });
    });
});
