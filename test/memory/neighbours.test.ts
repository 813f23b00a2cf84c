/**
 * The relation neighbours recall reads for its best rows (`MemoryStore.neighbours`): each seed's
 * strongest edges, either end, cut the same way on both databases and at any time (the far
 * ends' expiry is applied after the cut), and the live rows at their far ends.
 */
import { describe, expect, it } from "vitest";
import type { RelationRecord } from "../../core/index.ts";
import { memoryStoreUnderTest } from "../support/memory-store-tests.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets } from "../support/platforms.ts";

const start = Date.parse("2026-01-01T00:00:00Z");
const at = (minute: number) => new Date(start + minute * 60_000);

describe.each(storageTargets)("recall's relation neighbours on %s", (target) => {
  const store = memoryStoreUnderTest(target);

  it("gives each seed its strongest edges, the newest far ends first among equals, expired ones left out after the cut", async () => {
    const { accountId } = await createAccountWithKey(store.test);
    const contents = [
      "seed",
      "second seed",
      "strong incoming",
      ...Array.from({ length: 8 }, (_, index) => `far ${index}`),
      "expiring far",
    ];
    const rows = await store.memories.insertMany(
      accountId,
      contents.map((content, index) =>
        // The far ends are newer one after another; the expiring one is the newest of all.
        memoryWrite(content, "default", at(10 + index), content === "expiring far" ? at(100) : null),
      ),
    );
    const id = new Map(rows.map((row, index) => [contents[index], row.id]));
    const content = new Map(rows.map((row, index) => [row.id, contents[index]]));
    const edge = (from: string, to: string, confidence: number): RelationRecord => ({
      sourceMemoryId: id.get(from) as string,
      targetMemoryId: id.get(to) as string,
      relationType: "related",
      confidence,
      createdAt: at(200),
    });
    await store.memories.addRelations(accountId, [
      ...Array.from({ length: 8 }, (_, index) => edge("seed", `far ${index}`, 0.5)),
      edge("seed", "expiring far", 0.5),
      edge("strong incoming", "seed", 0.9),
      edge("seed", "second seed", 0.7),
    ]);
    const seeds = [id.get("seed") as string, id.get("second seed") as string];
    const read = async (minute: number) => {
      const { bySeed, rows: far } = await store.memories.neighbours(accountId, seeds, 5, at(minute));
      const ends = (seed: string) =>
        (bySeed.get(seed) ?? []).map((relation) =>
          content.get(relation.sourceMemoryId === seed ? relation.targetMemoryId : relation.sourceMemoryId),
        );
      return {
        seed: ends(seeds[0]),
        second: ends(seeds[1]),
        rows: far.map((row) => row.content).toSorted(),
      };
    };

    // Before the expiry: the strongest, then the equals newest first, five in all.
    expect(await read(50)).toEqual({
      seed: ["strong incoming", "second seed", "expiring far", "far 7", "far 6"],
      second: ["seed"],
      rows: ["expiring far", "far 6", "far 7", "strong incoming"],
    });
    // After it: the same cut, without the expired row (not "far 5" in its place).
    expect(await read(150)).toEqual({
      seed: ["strong incoming", "second seed", "far 7", "far 6"],
      second: ["seed"],
      rows: ["far 6", "far 7", "strong incoming"],
    });
  });

  it("reads no edge of another account", async () => {
    const mine = await createAccountWithKey(store.test);
    const theirs = await createAccountWithKey(store.test);
    const [seed] = await store.memories.insertMany(mine.accountId, [memoryWrite("my seed")]);
    const [far] = await store.memories.insertMany(theirs.accountId, [memoryWrite("their row")]);
    // An edge under the other account naming my row: never mine to read.
    await store.memories.addRelations(theirs.accountId, [
      {
        sourceMemoryId: far.id,
        targetMemoryId: seed.id,
        relationType: "related",
        confidence: 1,
        createdAt: at(0),
      },
    ]);
    const read = await store.memories.neighbours(mine.accountId, [seed.id], 10, at(1));
    expect(read.bySeed.get(seed.id)).toEqual([]);
    expect(read.rows).toEqual([]);
  });
});
