/**
 * Exact retrieval where it is hardest: words so common that the common-term rule applies
 * (SVC_MEMORY_COMMON_TERM_ROWS lowered to 15 so a small corpus reaches it). The oldest memory,
 * sharing only common words with the query, is still found, and SQLite and PostgreSQL return the
 * same memories in the same order with the same scores for every query: common words alone,
 * common with rare, rare alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  embeddingsMode,
  type TestPlatform,
} from "../support/platforms.ts";

const commonWords = ["family", "work", "weekend", "busy", "kids"];
const places = ["Lisbon", "Porto", "Leeds", "Glasgow", "Osaka", "Quito", "Tallinn", "Accra"];
const fillers = ["honestly", "lately", "again", "somehow", "mostly", "really", "quite", "already"];

/** 120 memories, oldest first: the first shares only common words with the queries below. */
function corpus(): string[] {
  const texts = ["Family work weekend."];
  for (let index = 1; index < 120; index++) {
    const words = commonWords.filter((_, position) => (index + position) % 3 !== 0);
    const place = index % 7 === 0 ? ` near ${places[index % places.length]}` : "";
    // A subject of its own per memory, so no memory reads as an update of another.
    texts.push(`Ledger${index} is ${words.join(" and ")} ${fillers[index % fillers.length]}${place}.`);
  }
  return texts;
}

const queries = [
  "family work weekend",
  "busy kids",
  "family",
  "work near Lisbon",
  "Glasgow weekend",
  "Tallinn",
  "kids ledger42",
];

interface Side {
  test: TestPlatform;
  key: string;
}

const sides: Side[] = [];

beforeAll(async () => {
  for (const target of ["sqlite", "postgresql"] as const) {
    const clock = createFakeClock();
    const test = await createTestPlatform(target, {
      clock,
      environment: { SVC_MEMORY_COMMON_TERM_ROWS: "15", SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000" },
    });
    const { key } = await createAccountWithKey(test, "common@example.com");
    for (const content of corpus()) {
      clock.advance(60_000);
      const response = await test.request("/v1/memory", {
        method: "POST",
        credential: key,
        json: { content },
      });
      expect(response.status).toBe(201);
    }
    // None replaces another (no superseded rows hide from these queries).
    const metrics = await test.request("/v1/memory/metrics", { credential: key });
    expect(((await metrics.json()) as { total_memories: number }).total_memories).toBe(120);
    sides.push({ test, key });
  }
}, 120_000);
afterAll(async () => {
  for (const side of sides) await side.test.close();
});

async function remember(side: Side, content: string): Promise<string> {
  const response = await side.test.request("/v1/memory", {
    method: "POST",
    credential: side.key,
    json: { content },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function search(side: Side, q: string) {
  const response = await side.test.request(`/v1/memory/search?${new URLSearchParams({ q, limit: "10" })}`, {
    credential: side.key,
  });
  const body = (await response.json()) as { memories: Array<{ content: string; score: number }> };
  return body.memories.map((row) => [row.content, row.score]);
}

describe("exact retrieval with common terms", () => {
  it("finds the oldest memory when it shares only common words with the query", async () => {
    for (const side of sides) {
      const found = await search(side, "family work weekend");
      expect(found[0]?.[0]).toBe("Family work weekend.");
    }
  });

  it("gives the same memories, order and scores on SQLite and PostgreSQL", async () => {
    const [sqlite, postgresql] = sides;
    for (const q of queries) {
      const expected = await search(sqlite, q);
      expect(expected.length, q).toBeGreaterThan(0);
      const found = await search(postgresql, q);
      if (!embeddingsMode) expect(found, q).toEqual(expected);
      else {
        // The same rows in the same order; the stores' cosines differ in float32's last place.
        expect(
          found.map(([content]) => content),
          q,
        ).toEqual(expected.map(([content]) => content));
        for (const [position, [, score]] of found.entries())
          expect(Math.abs(Number(score) - Number(expected[position]?.[1])), q).toBeLessThanOrEqual(0.00001);
      }
    }
  });

  it("answers the same from common terms' postings kept in memory, and sees a write or a forget at once", async () => {
    // The first search of an unchanged index reads every list from the database, the second
    // keeps the long ones in memory, the third answers from them (core/memory/recall-cache.ts).
    const before = new Map<Side, Map<string, unknown>>();
    for (const side of sides) {
      const answers = new Map<string, unknown>();
      for (const q of queries) {
        const first = await search(side, q);
        expect(await search(side, q), q).toEqual(first);
        expect(await search(side, q), q).toEqual(first);
        answers.set(q, first);
      }
      before.set(side, answers);
    }
    const content = "Zebra7 is family and work and weekend and busy and kids.";
    const added = new Map<Side, string>();
    for (const side of sides) {
      await search(side, "family work weekend");
      added.set(side, await remember(side, content));
      // The lists of common words drive this query: a list kept from before the write would miss
      // the new row.
      for (let round = 0; round < 2; round++)
        expect((await search(side, "family work weekend")).map(([found]) => found)).toContain(content);
    }
    const [sqlite, postgresql] = sides;
    if (!embeddingsMode)
      expect(await search(postgresql, "family work weekend")).toEqual(
        await search(sqlite, "family work weekend"),
      );
    for (const side of sides) {
      const response = await side.test.request(`/v1/memory/${added.get(side)}`, {
        method: "DELETE",
        credential: side.key,
      });
      expect(response.status).toBe(204);
      for (const q of queries) expect(await search(side, q), q).toEqual(before.get(side)?.get(q));
    }
  });
});
