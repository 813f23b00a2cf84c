/**
 * Recall keeps what it reads (postings lists, rows, relation edges) in memory per account and
 * version (core/memory/recall-cache.ts). These tests fill that cache (a third search of an
 * unchanged account answers from it), then change the account in every way the store allows and
 * expect the next search to show the change at once, on SQLite and PostgreSQL: a merge into an
 * existing row, a supersession, a new relation, an expiry, and access counts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../core/index.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

interface Side {
  name: string;
  test: TestPlatform;
  clock: ReturnType<typeof createManualClock>;
  key: string;
  accountId: string;
}

interface Found {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  access_count: number;
  superseded_at: string | null;
}

const sides: Side[] = [];

beforeAll(async () => {
  for (const name of ["sqlite", "postgresql"] as const) {
    const clock = createManualClock();
    const test = await createTestPlatform(name, {
      clock,
      environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000" },
    });
    const { key, accountId } = await createAccountWithKey(test);
    sides.push({ name, test, clock, key, accountId });
  }
}, 60_000);
afterAll(async () => {
  for (const side of sides) await side.test.close();
});

async function remember(side: Side, json: Record<string, unknown>): Promise<string> {
  side.clock.advance(1_000);
  const response = await side.test.request("/v1/memory", { method: "POST", credential: side.key, json });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function search(side: Side, q: string): Promise<Found[]> {
  const response = await side.test.request(`/v1/memory/search?${new URLSearchParams({ q })}`, {
    credential: side.key,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: Found[] }).memories;
}

/** Three searches of an unchanged account: the third answers from the cache. Returns the last. */
async function searchKept(side: Side, q: string): Promise<Found[]> {
  await search(side, q);
  await search(side, q);
  return search(side, q);
}

describe("recall from kept rows and edges", () => {
  it("shows a merge into an existing row at once", async () => {
    for (const side of sides) {
      await remember(side, { content: "The harbour ferry leaves at nine.", metadata: { source: "first" } });
      const before = await searchKept(side, "harbour ferry");
      expect(before[0]?.metadata, side.name).toEqual({ source: "first" });
      // The same content again: merged into the same row (no new row, no new postings).
      await remember(side, { content: "The harbour ferry leaves at nine.", metadata: { source: "second" } });
      const after = await search(side, "harbour ferry");
      expect(after[0]?.id, side.name).toBe(before[0]?.id);
      expect(after[0]?.metadata, side.name).toEqual({ source: "second" });
    }
  });

  it("counts every access exactly while rows come from the cache, written or not", async () => {
    for (const side of sides) {
      await remember(side, { content: "Quillon the cartographer draws tidal maps." });
      const counts: number[] = [];
      for (let round = 0; round < 6; round++) {
        const [first] = await search(side, "Quillon cartographer");
        counts.push(first?.access_count ?? -1);
        // A read of the row writes the counts searches took: the kept row's count is then old.
        const read = await side.test.request(`/v1/memory/${first?.id}`, { credential: side.key });
        expect(read.status).toBe(200);
      }
      expect(counts, side.name).toEqual([1, 2, 3, 4, 5, 6]);
    }
  });

  it("shows a supersession and a new relation written behind its back", async () => {
    for (const side of sides) {
      const old = await remember(side, { content: "Marrowby keeps the lighthouse logbook." });
      const newer = await remember(side, { content: "Penhallow repaints every buoy in spring." });
      expect((await searchKept(side, "Marrowby lighthouse")).map((row) => row.id)).toContain(old);
      // Another replica's linker, say: the store changes without this process writing.
      await side.test.platform.storage.memories.transaction((store) =>
        store.supersede(side.accountId, [old], newer, side.clock.now()),
      );
      const afterSupersede = await search(side, "Marrowby lighthouse");
      expect(
        afterSupersede.map((row) => row.id),
        side.name,
      ).not.toContain(old);

      const left = await remember(side, { content: "Oriel Vantongeren studies glacier cores." });
      const right = await remember(side, { content: "Tamsin Lowery bakes rye bread at dawn." });
      const kept = (await searchKept(side, "Vantongeren glacier")).map((row) => row.id);
      expect(kept[0]).toBe(left);
      expect(kept).not.toContain(right);
      await side.test.platform.storage.memories.transaction((store) =>
        store.addRelations(side.accountId, [
          {
            sourceMemoryId: left,
            targetMemoryId: right,
            relationType: "related",
            confidence: 0.9,
            createdAt: side.clock.now(),
          },
        ]),
      );
      // The neighbour of the best row now comes along through the new edge.
      const linked = (await search(side, "Vantongeren glacier")).map((row) => row.id);
      expect(linked[0], side.name).toBe(left);
      expect(linked, side.name).toContain(right);
    }
  });

  it("drops a kept row once it expires", async () => {
    for (const side of sides) {
      const expiresAt = new Date(side.clock.now().getTime() + 60 * 60_000).toISOString();
      const id = await remember(side, {
        content: "Wexcombe pier closes for the storm.",
        expires_at: expiresAt,
      });
      expect((await searchKept(side, "Wexcombe pier")).map((row) => row.id)).toContain(id);
      side.clock.advance(2 * 60 * 60_000);
      expect(
        (await search(side, "Wexcombe pier")).map((row) => row.id),
        side.name,
      ).not.toContain(id);
    }
  });
});
