/**
 * SQLite and PostgreSQL give the same memory answers, and so does recall ranked on search threads
 * (platform/memory-search-threads.ts): 200+ generated memories written in the
 * same order on the same manual clock, then 100+ generated queries (hostile ones included) must
 * return the same rows in the same order with the same scores, and list, profile, relations and
 * export must agree. Ids are random UUIDs, so rows are compared by identity (scope, kind, content).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  embeddingsMode,
  type TestPlatform,
} from "../support/platforms.ts";
import { generateQueries, generateWrites, type ParityQuery } from "./parity-corpus.ts";

type MemoryOut = Record<string, unknown> & { id: string; scope: string; kind: string; content: string };

interface Side {
  test: TestPlatform;
  clock: ReturnType<typeof createFakeClock>;
  key: string;
  /** id → identity key, from every write's answer. */
  identities: Map<string, string>;
}

const writes = generateWrites(20_260_115, 240);
const queries = generateQueries(8_675_309, 130, writes);
const sides: Side[] = [];

const identity = (row: { scope: string; kind: string; content: string }) =>
  JSON.stringify([row.scope, row.kind, row.content]);

async function json<T>(side: Side, path: string, init: Parameters<TestPlatform["request"]>[1] = {}) {
  const response = await side.test.request(path, { ...init, credential: side.key });
  return { status: response.status, body: (await response.json()) as T };
}

/** A row with every id replaced by the identity it stands for. */
function portable(side: Side, row: MemoryOut) {
  const { id, superseded_by_id: successor, ...rest } = row;
  return {
    ...rest,
    identity: side.identities.get(id) ?? `unknown ${id}`,
    superseded_by: successor === null ? null : (side.identities.get(successor as string) ?? "unknown"),
  };
}

/**
 * Two stores' answers to one search: equal; with embeddings on, the same rows in the same order
 * and scores within 0.00001 (SQLite's cosine in doubles and pgvector's in floats differ in the
 * last place of a float32 vector's similarity).
 */
function expectSameAnswer(actual: { hits: unknown }, expected: { hits: unknown }, query: string) {
  const message = `answer to ${query}`;
  if (!embeddingsMode || !Array.isArray(actual.hits) || !Array.isArray(expected.hits))
    return expect(actual, message).toEqual(expected);
  const scores = (hits: { score: number }[]) => hits.map((hit) => hit.score);
  const withoutScores = (answer: { hits: { score: number }[] }) => ({
    ...answer,
    hits: answer.hits.map(({ score: _score, ...rest }) => rest),
  });
  expect(withoutScores(actual as { hits: { score: number }[] }), message).toEqual(
    withoutScores(expected as { hits: { score: number }[] }),
  );
  const expectedScores = scores(expected.hits);
  for (const [position, score] of scores(actual.hits).entries())
    expect(Math.abs(score - (expectedScores[position] as number)), message).toBeLessThanOrEqual(0.00001);
}

function searchPath(query: ParityQuery) {
  const parameters = new URLSearchParams({ q: query.q });
  if (query.scope !== undefined) parameters.set("scope", query.scope);
  if (query.limit !== undefined) parameters.set("limit", String(query.limit));
  return `/v1/memory/search?${parameters}`;
}

beforeAll(async () => {
  // The third side ranks on search threads, as the server does: the same answers again.
  for (const [target, threads] of [
    ["sqlite", "0"],
    ["postgresql", "0"],
    ["sqlite", "2"],
  ] as const) {
    const clock = createFakeClock();
    const test = await createTestPlatform(target, {
      clock,
      environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000", SVC_MEMORY_SEARCH_THREADS: threads },
    });
    const { key } = await createAccountWithKey(test, "parity@example.com");
    sides.push({ test, clock, key, identities: new Map() });
  }
  let rejected = 0;
  for (const write of writes) {
    const answers: unknown[] = [];
    for (const side of sides) {
      const { expires_in: expiresIn, ...body } = write.body;
      if (typeof expiresIn === "number") {
        body.expires_at = new Date(side.clock.now().getTime() + expiresIn).toISOString();
      }
      const { status, body: row } = await json<MemoryOut>(side, "/v1/memory", { method: "POST", json: body });
      if (status === 201) side.identities.set(row.id, identity(row));
      answers.push(status === 201 ? portable(side, row) : { status, row });
      side.clock.advance(write.advance);
    }
    // toEqual, not string equality: PostgreSQL's jsonb reorders metadata keys, and JSON objects
    // are unordered.
    for (const answer of answers.slice(1))
      expect(answer, `write of ${JSON.stringify(write.body.content)}`).toEqual(answers[0]);
    if (!("identity" in (answers[0] as object))) rejected++;
  }
  // Only the writes holding U+0000 are refused (422 on both), everything else is stored.
  expect(rejected).toBe(writes.filter((write) => String(write.body.content).includes("\u0000")).length);
}, 300_000);

afterAll(async () => {
  for (const side of sides) await side.test.close();
});

describe("memory parity between SQLite and PostgreSQL", () => {
  test("the corpus is the size the issue asks for and exercises supersession and expiry", async () => {
    expect(writes.length).toBeGreaterThanOrEqual(200);
    expect(queries.length).toBeGreaterThanOrEqual(100);
    const [sqlite] = sides;
    const { body } = await json<{ memories: MemoryOut[] }>(sqlite, "/v1/memory/export");
    const distinct = new Set(sqlite.identities.values()).size;
    // Duplicates merged, some rows expired, and update markers superseded others.
    expect(distinct).toBeLessThan(writes.length);
    expect(body.memories.length).toBeLessThan(distinct);
    expect(body.memories.filter((row) => row.superseded_at !== null).length).toBeGreaterThan(3);
  });

  test("every query returns the same rows, order and scores on both stores", async () => {
    let nonEmpty = 0;
    let historyHits = 0;
    for (const query of queries) {
      const answers = [];
      for (const side of sides) {
        const { status, body } = await json<{ memories: (MemoryOut & { score: number })[] }>(
          side,
          searchPath(query),
        );
        answers.push({
          status,
          hits: status === 200 ? body.memories.map((row) => portable(side, row)) : body,
        });
      }
      // Any query text is valid; only a scope holding U+0000 (which no store can hold) is refused.
      const expected = query.scope?.includes("\u0000") ? 422 : 200;
      expect(answers[0].status, `status of ${JSON.stringify(query)}`).toBe(expected);
      for (const answer of answers.slice(1)) expectSameAnswer(answer, answers[0], JSON.stringify(query));
      if (expected !== 200) continue;
      const hits = answers[0].hits as unknown as { score: number; superseded_at: unknown }[];
      if (hits.length > 0) nonEmpty++;
      if (hits.some((hit) => hit.superseded_at !== null)) historyHits++;
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      for (const hit of hits) expect(hit.score).toBeLessThan(1);
      for (const side of sides) side.clock.advance(1_000);
    }
    // The comparison means something only if many queries find rows, some of them historical.
    expect(nonEmpty).toBeGreaterThan(queries.length / 2);
    expect(historyHits).toBeGreaterThan(0);
  }, 120_000);

  test("list, profile and export agree", async () => {
    const paths = [
      "/v1/memory?limit=100",
      "/v1/memory?limit=100&offset=100",
      "/v1/memory?include_superseded=true&limit=100",
      "/v1/memory?scope=work&limit=20",
      "/v1/memory?scope=%C3%A9quipe&include_superseded=true",
      "/v1/memory/profile",
      "/v1/memory/profile?scope=home&limit=5",
      "/v1/memory/metrics",
    ];
    for (const path of paths) {
      const answers = [];
      for (const side of sides) {
        const { status, body } = await json<MemoryOut[] | Record<string, MemoryOut[]>>(side, path);
        const rows = (list: MemoryOut[]) => list.map((row) => portable(side, row));
        answers.push({
          status,
          body: Array.isArray(body)
            ? rows(body)
            : "static" in body
              ? { static: rows(body.static), dynamic: rows(body.dynamic) }
              : body,
        });
      }
      for (const answer of answers.slice(1)) expect(answer, path).toEqual(answers[0]);
    }
    const exports = [];
    for (const side of sides) {
      const { body } = await json<{
        memories: MemoryOut[];
        relations: { source_memory_id: string; target_memory_id: string }[];
      }>(side, "/v1/memory/export");
      const map = (id: string) => side.identities.get(id);
      exports.push({
        memories: body.memories.map((row) => portable(side, row)),
        relations: body.relations
          .map((edge) => ({
            ...edge,
            source_memory_id: map(edge.source_memory_id),
            target_memory_id: map(edge.target_memory_id),
          }))
          .sort((first, second) => JSON.stringify(first).localeCompare(JSON.stringify(second))),
      });
    }
    expect(exports[0].relations.length).toBeGreaterThan(0);
    expect(exports[1]).toEqual(exports[0]);
  });

  test("every memory has the same relations on both stores", async () => {
    const byIdentity = sides.map((side) => new Map([...side.identities].map(([id, key]) => [key, id])));
    let edges = 0;
    for (const key of byIdentity[0].keys()) {
      const answers = [];
      for (const [index, side] of sides.entries()) {
        const id = byIdentity[index].get(key) as string;
        const { status, body } = await json<{
          relations: {
            source_memory_id: string;
            target_memory_id: string;
            confidence: number;
            created_at: string;
          }[];
        }>(side, `/v1/memory/${id}/relations?limit=100`);
        const relations = status === 200 ? body.relations : [];
        // Ordered by confidence, then newest; ties beyond that fall to the (random) target id.
        for (let position = 1; position < relations.length; position++) {
          const [before, after] = [relations[position - 1], relations[position]];
          expect(
            before.confidence > after.confidence ||
              (before.confidence === after.confidence && before.created_at >= after.created_at),
          ).toBe(true);
        }
        answers.push({
          status,
          relations: relations
            .map(({ source_memory_id: _source, target_memory_id: target, ...edge }) => ({
              ...edge,
              target: side.identities.get(target),
            }))
            .sort((first, second) => JSON.stringify(first).localeCompare(JSON.stringify(second))),
        });
      }
      edges += answers[0].relations.length;
      for (const answer of answers.slice(1)) expect(answer, `relations of ${key}`).toEqual(answers[0]);
    }
    expect(edges).toBeGreaterThan(0);
  }, 60_000);

  test("the per-scope row counts and lengths behind BM25 match the rows, also after a forget", async () => {
    for (const side of sides) {
      const [first] = side.identities.keys();
      const response = await side.test.request(`/v1/memory/${first}`, {
        method: "DELETE",
        credential: side.key,
      });
      expect(response.ok).toBe(true);
      side.identities.delete(first);
      const storage = side.test.platform.storage;
      type Counts = { scope: string; total: number | string; length: number | string };
      const counted = await storage.execute<Counts>(
        "select scope, total, total_length as length from memory_counts order by scope",
      );
      const actual = await storage.execute<Counts>(
        "select scope, count(*) as total, sum(index_length) as length from memories group by scope order by scope",
      );
      const plain = (rows: Counts[]) =>
        rows
          .filter((row) => Number(row.total) > 0)
          .map((row) => [row.scope, Number(row.total), Number(row.length)]);
      expect(plain(counted)).toEqual(plain(actual));
      expect(actual.length).toBeGreaterThan(3);
    }
  });
});
