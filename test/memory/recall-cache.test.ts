/**
 * Recall keeps what it reads (terms' counts and short lists, long postings lists, rows, relation
 * edges) in memory per account and version (core/memory/recall-cache.ts). These tests fill that
 * cache (a third search of an unchanged account answers from it), then change the account in
 * every way the store allows and expect the next search to show the change at once, on SQLite
 * and PostgreSQL: a new row holding the query's terms, a merge into an existing row, a
 * supersession, a new relation, an expiry, and access counts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, type MemoryOut, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("recall from kept rows and edges on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
  });
  afterAll(async () => {
    await test?.close();
  });

  /** A fresh account whose writes each come a second after the last. */
  async function account() {
    const { accountId, memory } = await newAccount(test);
    const remember = async (body: Record<string, unknown>) => {
      clock.advance(1_000);
      return (await memory.remember(body)).id;
    };
    return { accountId, memory, remember };
  }

  const search = async (memory: MemoryClient, q: string): Promise<MemoryOut[]> =>
    (await memory.search(q)).memories;

  /** Three searches of an unchanged account: the third answers from the cache. Returns the last. */
  async function searchKept(memory: MemoryClient, q: string): Promise<MemoryOut[]> {
    await search(memory, q);
    await search(memory, q);
    return search(memory, q);
  }

  it("finds a new row holding kept terms at once, and ranks with the terms' new counts", async () => {
    const { memory, remember } = await account();
    const first = await remember({ content: "Brackenridge posts the ferry timetable." });
    await remember({ content: "The ferry to Brackenridge runs hourly." });
    expect((await searchKept(memory, "Brackenridge timetable")).map((row) => row.id)).toEqual([
      first,
      expect.any(String),
    ]);
    // Its terms are kept at the version before this write: the next search must see past them.
    const added = await remember({ content: "Brackenridge timetable changes in winter." });
    const after = await search(memory, "Brackenridge timetable");
    expect(after.map((row) => row.id)).toContain(added);
    // The first read after the write and a kept one agree, scores included.
    const ranked = (rows: MemoryOut[]) => rows.map((row) => [row.id, row.score]);
    expect(ranked(await searchKept(memory, "Brackenridge timetable"))).toEqual(ranked(after));
  });

  it("keeps a scope's short lists apart from every scope's", async () => {
    const { memory, remember } = await account();
    const work = await remember({ content: "Calloway reviews the quarterly budget.", scope: "work" });
    const home = await remember({ content: "Calloway plants the budget tomatoes.", scope: "home" });
    for (let round = 0; round < 3; round++) await memory.search("Calloway budget", { scope: "work" });
    expect((await memory.search("Calloway budget", { scope: "work" })).memories.map((row) => row.id)).toEqual(
      [work],
    );
    expect((await memory.search("Calloway budget")).memories.map((row) => row.id).sort()).toEqual(
      [work, home].sort(),
    );
  });

  it("shows a merge into an existing row at once", async () => {
    const { memory, remember } = await account();
    await remember({ content: "The harbour ferry leaves at nine.", metadata: { source: "first" } });
    const before = await searchKept(memory, "harbour ferry");
    expect(before[0]?.metadata).toEqual({ source: "first" });
    // The same content again: merged into the same row (no new row, no new postings).
    await remember({ content: "The harbour ferry leaves at nine.", metadata: { source: "second" } });
    const after = await search(memory, "harbour ferry");
    expect(after[0]?.id).toBe(before[0]?.id);
    expect(after[0]?.metadata).toEqual({ source: "second" });
  });

  it("counts every access exactly while rows come from the cache, written or not", async () => {
    const { memory, remember } = await account();
    await remember({ content: "Quillon the cartographer draws tidal maps." });
    const counts: number[] = [];
    for (let round = 0; round < 6; round++) {
      const [first] = await search(memory, "Quillon cartographer");
      counts.push(first?.access_count ?? -1);
      // A read of the row writes the counts searches took: the kept row's count is then old.
      await memory.get(first?.id as string);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("counts a kept neighbour's accesses exactly too", async () => {
    const { accountId, memory, remember } = await account();
    const seed = await remember({ content: "Ysolde Brankworth charts the reef channels." });
    const neighbour = await remember({ content: "Halvard keeps the lighthouse lamp trimmed." });
    await test.platform.storage.memories.transaction((store) =>
      store.addRelations(accountId, [
        {
          sourceMemoryId: seed,
          targetMemoryId: neighbour,
          relationType: "related",
          confidence: 0.9,
          createdAt: clock.now(),
        },
      ]),
    );
    const counts: number[] = [];
    for (let round = 0; round < 5; round++) {
      // From the second round on, the edge and the neighbour's row come from the cache: the row
      // joins after the first ranking, so its count is read on its own.
      const found = await search(memory, "Brankworth reef");
      counts.push(found.find((row) => row.id === neighbour)?.access_count ?? -1);
      // A read writes the counts searches took: the kept row's count is then old.
      await memory.get(neighbour);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5]);
  });

  it("shows a supersession and a new relation written behind its back", async () => {
    const { accountId, memory, remember } = await account();
    const old = await remember({ content: "Marrowby keeps the lighthouse logbook." });
    const newer = await remember({ content: "Penhallow repaints every buoy in spring." });
    expect((await searchKept(memory, "Marrowby lighthouse")).map((row) => row.id)).toContain(old);
    // Another replica's linker, say: the store changes without this process writing.
    await test.platform.storage.memories.transaction((store) =>
      store.supersede(accountId, [old], newer, clock.now()),
    );
    expect((await search(memory, "Marrowby lighthouse")).map((row) => row.id)).not.toContain(old);

    const left = await remember({ content: "Oriel Vantongeren studies glacier cores." });
    const right = await remember({ content: "Tamsin Lowery bakes rye bread at dawn." });
    const kept = (await searchKept(memory, "Vantongeren glacier")).map((row) => row.id);
    expect(kept[0]).toBe(left);
    expect(kept).not.toContain(right);
    await test.platform.storage.memories.transaction((store) =>
      store.addRelations(accountId, [
        {
          sourceMemoryId: left,
          targetMemoryId: right,
          relationType: "related",
          confidence: 0.9,
          createdAt: clock.now(),
        },
      ]),
    );
    // The neighbour of the best row now comes along through the new edge.
    const linked = (await search(memory, "Vantongeren glacier")).map((row) => row.id);
    expect(linked[0]).toBe(left);
    expect(linked).toContain(right);
  });

  it("drops a kept row once it expires", async () => {
    const { memory, remember } = await account();
    const expiresAt = new Date(clock.now().getTime() + 60 * 60_000).toISOString();
    const id = await remember({ content: "Wexcombe pier closes for the storm.", expires_at: expiresAt });
    expect((await searchKept(memory, "Wexcombe pier")).map((row) => row.id)).toContain(id);
    clock.advance(2 * 60 * 60_000);
    expect((await search(memory, "Wexcombe pier")).map((row) => row.id)).not.toContain(id);
  });
});
