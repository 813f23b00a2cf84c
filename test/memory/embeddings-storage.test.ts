/**
 * The memory store's vectors on both databases: storing guarded by the memory's content, the
 * embedder's work list, nearest rows (exact on SQLite; the path's HNSW index on PostgreSQL, which
 * must give the exact answer on a small set and never another account's rows), paths kept apart,
 * old paths dropped, and forget removing the vectors down to the bytes on disk.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddingPath, EmbeddingWork, MemoryStore, StoredEmbedding } from "../../core/index.ts";
import { hybridRecall, recallMemories } from "../../core/memory/index.ts";
import { nearestLeadLength } from "../../core/ports/memory-store.ts";
import { hnswIndexName, hnswIndexStatement, vectorBytes } from "../../plugins/storage/embedding-paths.ts";
import { carriedOverVectors } from "../../plugins/storage/migrations/0027-memory-session-context.ts";
import { sql } from "../../plugins/storage/sql-statement.ts";
import { eventually } from "../support/eventually.ts";
import { recordingPostgresStore } from "../support/memory-store-tests.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import {
  createAccountWithKey,
  createTestDatabase,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";
import { filesHolding, filesUnder, postgresRelationFiles } from "../support/stored-files.ts";

const dimensions = 16;
const pathA: EmbeddingPath = { modelId: "cairn/test-model", dimensions, version: 1 };
const pathB: EmbeddingPath = { modelId: "cairn/test-model", dimensions, version: 2 };
const hash = (text: string) => createHash("sha256").update(text).digest("hex");

/** A deterministic unit vector per seed (a small linear congruential generator). */
function unitVector(seed: number, width = dimensions): Float32Array {
  let state = seed * 7919 + 17;
  const values = Array.from({ length: width }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  });
  return normalized(values);
}

function normalized(values: ArrayLike<number>): Float32Array {
  const norm = Math.sqrt(Array.from(values).reduce((sum, value) => sum + value * value, 0));
  return Float32Array.from(values, (value) => value / norm);
}

/** `base` moved a little towards `towards`: close to it, and closer the smaller `weight`. */
function near(base: Float32Array, towards: Float32Array, weight: number): Float32Array {
  return normalized(Array.from(base, (value, index) => value + weight * towards[index]));
}

const cosine = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, index) => sum + value * b[index], 0);

/** What the embedder stores for its work: item i gets `unitVector(seed + i)`, made with the context it was given. */
const vectorsFor = (work: EmbeddingWork[], seed: number): StoredEmbedding[] =>
  work.map((item, index) => ({
    accountId: item.accountId,
    memoryId: item.memoryId,
    contentHash: item.contentHash,
    vector: unitVector(seed + index),
    contextId: item.context?.memoryId ?? null,
  }));

describe.each(storageTargets)("memory vectors on %s", (target) => {
  let test: TestPlatform;
  let memories: MemoryStore;
  const now = () => new Date();

  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  /** The platform the tests' helpers use, on a database of its own (PostgreSQL). */
  async function open() {
    // PostgreSQL plans a few hundred rows as a scan and a sort (exact); with sorts priced out,
    // the only plan left for the nearest rows is the path's HNSW index, which is what is tested.
    if (target === "postgresql") {
      database = await createTestDatabase();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(`alter database ${new URL(database.url).pathname.slice(1)} set enable_sort = off`);
      await client.end();
    }
    test = await createTestPlatform(target, {
      databaseUrl: database?.url,
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    });
    memories = test.platform.storage.memories;
  }
  async function close() {
    await test?.close();
    await database?.drop();
  }
  beforeAll(open);
  afterAll(close);

  /**
   * PostgreSQL's own test of which plan a search takes, on a database of its own: the plan
   * depends on how many vectors the table holds (other tests' included), so the test's rows are
   * all there are. Declared only there, so SQLite's run has nothing skipped.
   */
  const planTest = (name: string, body: () => Promise<void>) => {
    if (target !== "postgresql") return;
    it(name, async () => {
      const shared = { test, memories, database };
      await open();
      try {
        await body();
      } finally {
        await close();
        ({ test, memories, database } = shared);
      }
    });
  };

  /** A fresh account with `count` memories, each updated a second after the one before. */
  async function accountWith(count: number, scope = "default") {
    const account = await createAccountWithKey(test);
    const start = Date.now() - count * 1000 - 60_000;
    const writes = Array.from({ length: count }, (_, index) =>
      // Past `nearestLeadLength` characters, so a search's leads are cut where the contract says.
      ({
        ...memoryWrite(
          `Speaker ${index}: memory ${index} of ${account.accountId}, ${"said at length ".repeat(20)}`,
          scope,
          new Date(start + index * 1000),
        ),
        // Every other row from a document of its own date: the time it was said.
        documentDate: index % 2 === 1 ? new Date(Date.UTC(2023, 0, 1 + index)) : null,
      }),
    );
    const ids = (await memories.insertMany(account.accountId, writes)).map((row) => row.id);
    const rows = ids.map((id, index) => ({
      id,
      contentHash: writes[index].contentHash,
      updatedAt: writes[index].updatedAt,
      content: writes[index].content,
      saidAt: writes[index].documentDate ?? writes[index].createdAt,
    }));
    return { ...account, rows };
  }

  /** `accountWith(count)`, row i holding `unitVector(seed + i)` on path A. */
  async function accountWithVectors(count: number, seed: number) {
    const account = await accountWith(count);
    await memories.putEmbeddings(
      pathA,
      stored(
        account.accountId,
        account.rows,
        account.rows.map((_, index) => unitVector(seed + index)),
      ),
    );
    return account;
  }

  const stored = (
    accountId: string,
    rows: Array<{ id: string; contentHash: string }>,
    vectors: Float32Array[],
  ) =>
    rows.map((row, index) => ({
      accountId,
      memoryId: row.id,
      contentHash: row.contentHash,
      vector: vectors[index],
    }));

  const nearest = (
    accountId: string,
    vector: Float32Array,
    options: Partial<Parameters<MemoryStore["nearest"]>[1]> = {},
  ) =>
    memories.nearest(
      accountId,
      {
        path: pathA,
        vector,
        limit: 10,
        includeSuperseded: false,
        fallbackLimit: 2000,
        efSearch: 40,
        ...options,
      },
      now(),
    );

  /** The exact answer: every candidate's cosine with the query, most similar first, ties by id. */
  function exact(
    query: Float32Array,
    candidates: Array<{ id: string; vector: Float32Array }>,
    limit: number,
  ) {
    return candidates
      .map((candidate) => ({ id: candidate.id, similarity: cosine(query, candidate.vector) }))
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  const vectorRows = async (memoryId: string) =>
    Number(
      (
        await test.platform.storage.execute<{ total: number | string }>(
          sql`select count(*) as total from memory_embeddings where memory_id = ${memoryId}`,
        )
      )[0].total,
    );

  /** Makes a memory expired a minute ago (SQLite keeps times as epoch milliseconds). */
  const expire = async (memoryId: string) => {
    const past = new Date(Date.now() - 60_000);
    await test.platform.storage.execute(
      sql`update memories set expires_at = ${target === "sqlite" ? past.getTime() : past} where id = ${memoryId}`,
    );
  };

  /** PostgreSQL: a store on the test's database that records every statement it runs. */
  function recordingStore() {
    const { pool, bound, statements, recording } = recordingPostgresStore(test.databaseUrl as string);
    /** The ids of a search on path A with an exact scan allowed for 10 rows, its statements alone recorded. */
    const searchIds = async (
      accountId: string,
      vector: Float32Array,
      options: { scope?: string; limit: number },
    ) => {
      statements.length = 0;
      const answer = await recording.nearest(
        accountId,
        { path: pathA, vector, includeSuperseded: false, fallbackLimit: 10, efSearch: 64, ...options },
        now(),
      );
      return answer.map((row) => row.id);
    };
    /** Whether the recorded search went through the HNSW index (its statement sets the candidate list). */
    const usedHnsw = () => statements.some(({ sql }) => sql.includes("set_config('hnsw.ef_search'"));
    return { pool, bound, statements, recording, searchIds, usedHnsw };
  }

  it("lists work, stores and replaces vectors, and drops those of changed or forgotten memories", async () => {
    const account = await accountWith(4);
    const [first, second, third, fourth] = account.rows;
    const work = async () =>
      (await memories.embeddingWork(pathA, 10_000, now())).filter(
        (item) => item.accountId === account.accountId,
      );
    expect((await work()).map((item) => item.memoryId)).toEqual(account.rows.map((row) => row.id));
    expect((await work())[0]).toMatchObject({
      content: account.rows[0].content,
      contentHash: first.contentHash,
    });

    await memories.putEmbeddings(
      pathA,
      stored(account.accountId, [first, second], [unitVector(1), unitVector(2)]),
    );
    expect((await work()).map((item) => item.memoryId)).toEqual([third.id, fourth.id]);
    // Among listed rows only (an embedder's just-written rows): unknown ids and rows with a vector
    // drop out, and an empty list finds nothing.
    const listed = async (ids: string[]) =>
      (await memories.embeddingWork(pathA, 10_000, now(), ids)).map((item) => item.memoryId);
    expect(await listed([first.id, fourth.id, crypto.randomUUID()])).toEqual([fourth.id]);
    expect(await listed([])).toEqual([]);
    expect(await memories.embeddedCount(account.accountId, undefined, pathA, now())).toBe(2);
    expect(await memories.embeddedCount(account.accountId, undefined, pathB, now())).toBe(0);
    expect((await memories.metrics(account.accountId, undefined, now(), pathA)).embedded).toBe(2);
    expect((await memories.metrics(account.accountId, undefined, now())).embedded).toBe(0);

    // A second vector for the same memory and path replaces the first.
    await memories.putEmbeddings(pathA, stored(account.accountId, [first], [unitVector(3)]));
    expect(await vectorRows(first.id)).toBe(1);
    const replaced = await nearest(account.accountId, unitVector(3), { limit: 1 });
    expect(replaced[0].id).toBe(first.id);
    expect(replaced[0].similarity).toBeCloseTo(1, 5);

    // A vector computed from content the memory no longer holds is never stored, and the old
    // vector of that memory goes: it no longer describes the memory.
    await test.platform.storage.execute(
      sql`update memories set content_hash = ${hash("edited")} where id = ${second.id}`,
    );
    await memories.putEmbeddings(pathA, stored(account.accountId, [second], [unitVector(4)]));
    expect(await vectorRows(second.id)).toBe(0);
    expect((await work()).find((item) => item.memoryId === second.id)?.contentHash).toBe(hash("edited"));

    // A vector finishing after its memory was forgotten is dropped, without an error.
    const forgotten = await test.request(`/v1/memory/${third.id}`, {
      method: "DELETE",
      credential: account.key,
    });
    expect(forgotten.status).toBe(204);
    await memories.putEmbeddings(pathA, stored(account.accountId, [third], [unitVector(5)]));
    expect(await vectorRows(third.id)).toBe(0);
    // Another account's id never takes a vector either.
    const other = await createAccountWithKey(test);
    await memories.putEmbeddings(pathA, stored(other.accountId, [fourth], [unitVector(6)]));
    expect(await vectorRows(fourth.id)).toBe(0);

    await expect(
      memories.putEmbeddings(pathA, stored(account.accountId, [fourth], [unitVector(6, dimensions + 1)])),
    ).rejects.toThrow(/dimensions/);
    await expect(
      memories.putEmbeddings(
        { ...pathA, modelId: "x' or '1'='1" },
        stored(account.accountId, [fourth], [unitVector(6)]),
      ),
    ).rejects.toThrow(/model id/);
  });

  it("gives a session's memory the one before it as context, and a forget drops the vectors it went into", async () => {
    const account = await createAccountWithKey(test);
    const turn = (content: string, session: string | null, scope = "chat") => ({
      content: `${content} of ${account.accountId}`,
      scope,
      source_session_id: session,
    });
    // One import, so one instant: the batch's order is the session's order.
    const imported = await test.request("/v1/memory/import", {
      method: "POST",
      credential: account.key,
      json: {
        memories: [
          turn("first turn", "s1"),
          turn("other session", "s2"),
          turn("second turn", "s1"),
          turn("third turn", "s1"),
          turn("another scope", "s1", "elsewhere"),
          turn("no session", null),
        ],
      },
    });
    expect(imported.status).toBe(201);
    const ids = ((await imported.json()) as { memories: Array<{ id: string }> }).memories.map(
      (memory) => memory.id,
    );
    const [first, otherSession, second, third, otherScope, sessionless] = ids;
    const work = async () =>
      new Map(
        (await memories.embeddingWork(pathA, 10_000, now()))
          .filter((item) => item.accountId === account.accountId)
          .map((item) => [item.memoryId, item]),
      );
    const before = await work();
    const contextOf = (items: typeof before, id: string) => items.get(id)?.context;
    expect(contextOf(before, first)).toBeNull();
    expect(contextOf(before, second)).toEqual({
      memoryId: first,
      content: `first turn of ${account.accountId}`,
    });
    expect(contextOf(before, third)).toEqual({
      memoryId: second,
      content: `second turn of ${account.accountId}`,
    });
    for (const id of [otherSession, otherScope, sessionless]) expect(contextOf(before, id)).toBeNull();

    // Stored with their context; the forget of the second turn drops the third's vector (it
    // went into it) and lists the third to embed again, now after the first.
    const rows = ids.map((id) => ({ id, contentHash: before.get(id)?.contentHash as string }));
    await memories.putEmbeddings(
      pathA,
      stored(
        account.accountId,
        rows,
        ids.map((_, index) => unitVector(40 + index)),
      ).map((embedding) => ({
        ...embedding,
        contextId: before.get(embedding.memoryId)?.context?.memoryId ?? null,
      })),
    );
    for (const id of ids) expect(await vectorRows(id)).toBe(1);
    const forgotten = await test.request(`/v1/memory/${second}`, {
      method: "DELETE",
      credential: account.key,
    });
    expect(forgotten.status).toBe(204);
    expect(await vectorRows(second)).toBe(0);
    expect(await vectorRows(third)).toBe(0);
    for (const id of [first, otherSession, otherScope, sessionless]) expect(await vectorRows(id)).toBe(1);
    const after = await work();
    expect([...after.keys()]).toEqual([third]);
    expect(contextOf(after, third)).toEqual({
      memoryId: first,
      content: `first turn of ${account.accountId}`,
    });

    // A vector made with the forgotten memory as context, finishing after the forget, is dropped.
    const late = stored(
      account.accountId,
      [{ id: third, contentHash: after.get(third)?.contentHash as string }],
      [unitVector(50)],
    );
    await memories.putEmbeddings(pathA, [{ ...late[0], contextId: second }]);
    expect(await vectorRows(third)).toBe(0);
    await memories.putEmbeddings(pathA, [{ ...late[0], contextId: first }]);
    expect(await vectorRows(third)).toBe(1);
    // Creation order is the import's order, a millisecond apart, the last at the time of the import.
    const listed = await test.request("/v1/memory/export", { credential: account.key });
    const exported = ((await listed.json()) as { memories: Array<{ id: string; created_at: string }> })
      .memories;
    expect(exported.map((memory) => memory.id)).toEqual(ids.filter((id) => id !== second));
  });

  it("takes the session's memory before as context also once it has expired, so a vector never depends on when it was made", async () => {
    const account = await createAccountWithKey(test);
    const imported = await test.request("/v1/memory/import", {
      method: "POST",
      credential: account.key,
      json: {
        memories: ["asked about the trip", "yes, twice last year"].map((content) => ({
          content: `${content} of ${account.accountId}`,
          source_session_id: "s1",
        })),
      },
    });
    expect(imported.status).toBe(201);
    const [question, answer] = ((await imported.json()) as { memories: Array<{ id: string }> }).memories.map(
      (memory) => memory.id,
    );
    await expire(question);
    // The embedder running after the expiry makes the vector it would have made before: an
    // expired memory stays in the vectors it went into until it is forgotten, as it stays stored.
    const work = (await memories.embeddingWork(pathA, 10_000, now())).filter(
      (item) => item.accountId === account.accountId,
    );
    expect(work.map((item) => item.memoryId)).toEqual([answer]);
    expect(work[0].context).toEqual({
      memoryId: question,
      content: `asked about the trip of ${account.accountId}`,
    });
  });

  it("embeds a turn again when a turn is written before it or its context moves to another session", async () => {
    const account = await createAccountWithKey(test);
    const post = async (route: string, json: unknown) => {
      const response = await test.request(route, { method: "POST", credential: account.key, json });
      expect(response.status).toBe(201);
      return (await response.json()) as { id: string; memories: Array<{ id: string }> };
    };
    const text = (content: string) => `${content} of ${account.accountId}`;
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
    const turn = (content: string, minute: number, session = "s1") => ({
      content: text(content),
      source_session_id: session,
      created_at: at(minute),
    });
    const [first, third, alone] = (
      await post("/v1/memory/import", {
        memories: [turn("first turn", 1), turn("third turn", 3), turn("alone", 4, "s2")],
      })
    ).memories.map((memory) => memory.id);
    const contexts = async () =>
      new Map(
        (await memories.embeddingWork(pathA, 10_000, now()))
          .filter((item) => item.accountId === account.accountId)
          .map((item) => [item.memoryId, item.context?.memoryId ?? null]),
      );
    /** Stores a vector for every memory the embedder would embed, with the context it was given. */
    const embedAll = async () => {
      const work = (await memories.embeddingWork(pathA, 10_000, now())).filter(
        (item) => item.accountId === account.accountId,
      );
      await memories.putEmbeddings(pathA, vectorsFor(work, 70));
    };
    await embedAll();
    expect(await contexts()).toEqual(new Map());

    // A turn imported between two embedded ones: the later one's context is now the new turn.
    const [second] = (await post("/v1/memory/import", { memories: [turn("second turn", 2)] })).memories.map(
      (memory) => memory.id,
    );
    expect(await vectorRows(third)).toBe(0);
    expect(await contexts()).toEqual(
      new Map([
        [second, first],
        [third, second],
      ]),
    );
    // A vector the embedder made before that write, with the old context, is not stored.
    const [late] = (await memories.embeddingWork(pathA, 10_000, now())).filter(
      (item) => item.memoryId === third,
    );
    await memories.putEmbeddings(pathA, [
      {
        accountId: account.accountId,
        memoryId: third,
        contentHash: late.contentHash,
        vector: unitVector(90),
        contextId: first,
      },
    ]);
    expect(await vectorRows(third)).toBe(0);
    await embedAll();

    // Stated again in the same session: every vector still holds.
    const same = await post("/v1/memory", { content: text("second turn"), source_session_id: "s1" });
    expect(same.id).toBe(second);
    expect(await contexts()).toEqual(new Map());

    // Stated again in another session (an upsert moves it): its own vector (made after the first
    // turn) and the third turn's (made after it) go; the turn now after it in s2 had no context.
    const moved = await post("/v1/memory", { content: text("second turn"), source_session_id: "s2" });
    expect(moved.id).toBe(second);
    expect(await contexts()).toEqual(
      new Map([
        [second, null],
        [third, first],
        [alone, second],
      ]),
    );
    await embedAll();
    expect(await contexts()).toEqual(new Map());
    for (const id of [first, second, third, alone]) expect(await vectorRows(id)).toBe(1);
  });

  it("forget removes the memory's vectors in its transaction", async () => {
    const account = await accountWith(2);
    await memories.putEmbeddings(
      pathA,
      stored(account.accountId, account.rows, [unitVector(7), unitVector(8)]),
    );
    await memories.putEmbeddings(
      pathB,
      stored(account.accountId, account.rows, [unitVector(9), unitVector(10)]),
    );
    expect(await vectorRows(account.rows[0].id)).toBe(2);
    const forgotten = await test.request(`/v1/memory/${account.rows[0].id}`, {
      method: "DELETE",
      credential: account.key,
    });
    expect(forgotten.status).toBe(204);
    expect(await vectorRows(account.rows[0].id)).toBe(0);
    expect(await vectorRows(account.rows[1].id)).toBe(2);
    expect(await memories.embeddedCount(account.accountId, undefined, pathA, now())).toBe(1);
  });

  it("nearest gives the exact order, within scope, live rows and the superseded rule", async () => {
    const account = await accountWith(40);
    const scoped = await memories.insertMany(account.accountId, [
      memoryWrite(`elsewhere ${account.accountId}`, "work"),
    ]);
    const vectors = account.rows.map((_, index) => unitVector(100 + index));
    await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
    const query = unitVector(99);
    const candidates = account.rows.map((row, index) => ({ id: row.id, vector: vectors[index] }));
    const answer = await nearest(account.accountId, query, { limit: 10 });
    const expected = exact(query, candidates, 10);
    expect(answer.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    for (const [index, row] of answer.entries())
      expect(row.similarity).toBeCloseTo(expected[index].similarity, 5);
    // Each with its row's time, for fusion's tie-breaks, and the start of its content.
    const updatedAt = new Map(account.rows.map((row) => [row.id, row.updatedAt]));
    expect(answer.map((row) => row.updatedAt)).toEqual(answer.map((row) => updatedAt.get(row.id)));
    const content = new Map(account.rows.map((row) => [row.id, row.content]));
    expect(answer.map((row) => row.lead)).toEqual(
      answer.map((row) => content.get(row.id)?.slice(0, nearestLeadLength)),
    );
    expect(answer[0].lead).toHaveLength(nearestLeadLength);
    // And when it was said: its document's date, else when it was written.
    const saidAt = new Map(account.rows.map((row) => [row.id, row.saidAt]));
    expect(answer.map((row) => row.saidAt)).toEqual(answer.map((row) => saidAt.get(row.id)));
    expect(new Set(answer.map((row) => row.saidAt.getUTCFullYear())).size).toBe(2);

    // The scope's rows only: a row of another scope, closest of all, stays out of "default".
    const scopedRow = { id: scoped[0].id, contentHash: hash(`elsewhere ${account.accountId}`) };
    await memories.putEmbeddings(pathA, stored(account.accountId, [scopedRow], [query]));
    expect(
      (await nearest(account.accountId, query, { scope: "default" })).map((row) => row.id),
    ).not.toContain(scopedRow.id);
    expect((await nearest(account.accountId, query, { scope: "work" })).map((row) => row.id)).toEqual([
      scopedRow.id,
    ]);
    expect((await nearest(account.accountId, query))[0].id).toBe(scopedRow.id);

    // Superseded rows only when asked for; expired rows never.
    const [best, second] = expected;
    await memories.supersede(account.accountId, [best.id], second.id, now());
    expect(
      (await nearest(account.accountId, query, { scope: "default", limit: 2 })).map((row) => row.id),
    ).not.toContain(best.id);
    expect(
      (await nearest(account.accountId, query, { scope: "default", limit: 2, includeSuperseded: true }))[0]
        .id,
    ).toBe(best.id);
    await expire(second.id);
    const live = await nearest(account.accountId, query, {
      scope: "default",
      limit: 40,
      includeSuperseded: true,
    });
    expect(live.map((row) => row.id)).not.toContain(second.id);
    expect(live).toHaveLength(39);
  });

  it("nearest never returns another account's rows, even when most rows and the closest are theirs", async () => {
    const query = unitVector(500);
    const crowd = await accountWith(300);
    await memories.putEmbeddings(
      pathA,
      stored(
        crowd.accountId,
        crowd.rows,
        crowd.rows.map((_, index) => near(query, unitVector(600 + index), 0.3)),
      ),
    );
    const account = await accountWith(6);
    const vectors = account.rows.map((_, index) => near(query, unitVector(1000 + index), 2));
    await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
    // So few rows are compared exactly on PostgreSQL too: the account's own nearest, none of the others'.
    const answer = await nearest(account.accountId, query, { limit: 5, efSearch: 10 });
    const expected = exact(
      query,
      account.rows.map((row, index) => ({ id: row.id, vector: vectors[index] })),
      5,
    );
    expect(answer.map((row) => row.id)).toEqual(expected.map((row) => row.id));
  });

  it("on SQLite the exact scan covers the newest fallbackLimit rows only; PostgreSQL searches them all", async () => {
    const account = await accountWith(12);
    const query = unitVector(1500);
    // The oldest row is the closest: outside a scan of the 5 newest rows.
    const vectors = account.rows.map((_, index) => (index === 0 ? query : unitVector(1501 + index)));
    await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
    const answer = await nearest(account.accountId, query, { limit: 12, fallbackLimit: 5 });
    if (target === "sqlite") {
      const newest = account.rows.slice(-5);
      const candidates = newest.map((row) => ({ id: row.id, vector: vectors[account.rows.indexOf(row)] }));
      expect(answer.map((row) => row.id)).toEqual(exact(query, candidates, 12).map((row) => row.id));
    } else {
      expect(answer).toHaveLength(12);
      expect(answer[0].id).toBe(account.rows[0].id);
    }
  });

  it("a query on one path never sees another path's vectors", async () => {
    const account = await accountWith(3);
    const query = unitVector(700);
    const [onBoth, onlyB, onlyA] = account.rows;
    await memories.putEmbeddings(
      pathA,
      stored(account.accountId, [onBoth, onlyA], [unitVector(701), unitVector(702)]),
    );
    await memories.putEmbeddings(pathB, stored(account.accountId, [onBoth, onlyB], [query, query]));
    const onA = await nearest(account.accountId, query);
    expect(onA.map((row) => row.id).sort()).toEqual([onBoth.id, onlyA.id].sort());
    expect(onA.find((row) => row.id === onBoth.id)?.similarity).toBeCloseTo(
      cosine(query, unitVector(701)),
      5,
    );
    const onB = await nearest(account.accountId, query, { path: pathB });
    expect(onB.map((row) => row.id).sort()).toEqual([onBoth.id, onlyB.id].sort());
    expect(onB[0].similarity).toBeCloseTo(1, 5);
    // Another width is another path too.
    const wide = { ...pathA, dimensions: dimensions * 2 };
    expect(await nearest(account.accountId, unitVector(703, dimensions * 2), { path: wide })).toEqual([]);
  });

  planTest("answers through the path's HNSW index, with the iterative scan on", async () => {
    const account = await accountWithVectors(20, 2000);
    const { pool, bound, statements, recording } = recordingStore();
    try {
      const request = {
        path: pathA,
        vector: unitVector(1999),
        limit: 5,
        includeSuperseded: false,
        fallbackLimit: 10,
        efSearch: 64,
      };
      const answer = await recording.nearest(account.accountId, request, now());
      expect(answer).toHaveLength(5);
      const updatedAt = new Map(account.rows.map((row) => [row.id, row.updatedAt]));
      expect(answer.map((row) => row.updatedAt)).toEqual(answer.map((row) => updatedAt.get(row.id)));
      const content = new Map(account.rows.map((row) => [row.id, row.content]));
      expect(answer.map((row) => row.lead)).toEqual(
        answer.map((row) => content.get(row.id)?.slice(0, nearestLeadLength)),
      );
      const saidAt = new Map(account.rows.map((row) => [row.id, row.saidAt]));
      expect(answer.map((row) => row.saidAt)).toEqual(answer.map((row) => saidAt.get(row.id)));
      // Two statements, no transaction: the account's row count, then the search, which sets
      // its own candidate list and iterative scan.
      expect(statements.map(({ sql }) => sql.trim().split(/\s+/)[0])).toEqual(["select", "with"]);
      const [search] = statements.filter((statement) => statement.sql.includes("set_config"));
      expect(search.sql).toContain("set_config('hnsw.ef_search', ?, true)");
      expect(search.sql).toContain("set_config('hnsw.iterative_scan', 'relaxed_order', true)");
      expect(search.parameters).toContain("64");
      // The settings govern the statement's own scan: without the iterative scan, the HNSW
      // index gives at most ef_search rows (fewer when other accounts' rows are among them),
      // where pgvector's default (40) would give all 5.
      const withoutIteration = search.statement.parts.map((part) => part.replace("'relaxed_order'", "'off'"));
      const efAt = search.parameters.indexOf("64");
      const searched = (ef: string) =>
        bound.execute({
          parts: withoutIteration,
          values: search.parameters.map((value, index) => (index === efAt ? ef : value)),
        });
      expect((await searched("3")).length).toBeLessThanOrEqual(3);
      expect(await searched("64")).toHaveLength(5);
      // Regression: once the tables are analysed, a join with memories looked like one row to
      // the planner, which then scanned every vector exactly instead of using the index.
      await pool.query("analyze memory_embeddings, memories");
      const [explained] = await bound.execute<{ "QUERY PLAN": unknown }>(
        sql`explain (format json) ${search.statement}`,
      );
      const plan = JSON.stringify(explained["QUERY PLAN"]);
      expect(plan).toContain(`"Index Name":"${hnswIndexName(pathA)}"`);
    } finally {
      await pool.end();
    }
  });

  planTest(
    "indexes a model of 3,072 dimensions (half precision), and answers in single precision",
    async () => {
      const wide: EmbeddingPath = { modelId: "cairn/wide-model", dimensions: 3072, version: 1 };
      const account = await accountWith(40);
      const vectors = account.rows.map((_, index) => unitVector(4000 + index, 3072));
      await memories.putEmbeddings(wide, stored(account.accountId, account.rows, vectors));
      const { pool, bound, statements, recording } = recordingStore();
      try {
        const query = near(vectors[7], unitVector(9999, 3072), 0.2);
        const answer = await recording.nearest(
          account.accountId,
          { path: wide, vector: query, limit: 5, includeSuperseded: false, fallbackLimit: 10, efSearch: 64 },
          now(),
        );
        const expected = exact(
          query,
          account.rows.map((row, index) => ({ id: row.id, vector: vectors[index] })),
          5,
        );
        expect(answer.map((row) => row.id)).toEqual(expected.map((row) => row.id));
        // The similarity is the stored vectors' own (off by 4e-8 here), not the index's half-
        // precision one (off by 4e-6).
        for (const [index, row] of answer.entries())
          expect(Math.abs(row.similarity - expected[index].similarity)).toBeLessThan(5e-7);
        const [search] = statements.filter((statement) => statement.sql.includes("set_config"));
        const [explained] = await bound.execute<{ "QUERY PLAN": unknown }>(
          sql`explain (format json) ${search.statement}`,
        );
        expect(JSON.stringify(explained["QUERY PLAN"])).toContain(`"Index Name":"${hnswIndexName(wide)}"`);
        expect(hnswIndexStatement(wide)).toContain("halfvec_cosine_ops");
        // pgvector's HNSW index takes half-precision vectors of up to 4,000 dimensions.
        expect(hnswIndexStatement({ ...wide, dimensions: 4000 })).not.toBeNull();
        expect(hnswIndexStatement({ ...wide, dimensions: 4001 })).toBeNull();
      } finally {
        await pool.end();
      }
    },
  );

  it("hybrid recall reads only the rows it returns, and equal vectors go to the newer row", async () => {
    const account = await accountWith(30);
    const query = unitVector(2999);
    const twin = async (content: string, updatedAt: Date) => {
      const write = memoryWrite(`${content} ${account.accountId}`, "default", updatedAt);
      const [row] = await memories.insertMany(account.accountId, [write]);
      return { id: row.id, contentHash: write.contentHash };
    };
    // Two rows holding the query's own vector: the older has the smaller id, so a tie broken by
    // id (or by a time nobody read) puts it first, and only the rows' times put the newer first.
    const older = await twin("older twin", new Date(Date.now() - 20_000));
    let newer = await twin("newer twin 0", new Date(Date.now() - 10_000));
    for (let attempt = 1; newer.id < older.id; attempt++)
      newer = await twin(`newer twin ${attempt}`, new Date(Date.now() - 10_000));
    await memories.putEmbeddings(
      pathA,
      stored(
        account.accountId,
        [...account.rows, older, newer],
        [...account.rows.map((_, index) => unitVector(3100 + index)), query, query],
      ),
    );
    const read: string[] = [];
    const recording: MemoryStore = {
      ...memories,
      getMany: (accountId, ids, at) => {
        read.push(...ids);
        return memories.getMany(accountId, ids, at);
      },
    };
    const answer = await hybridRecall(
      {
        memories: recording,
        search: {
          recall: (accountId, request) => recallMemories(memories, accountId, request),
          close: async () => {},
        },
        embedder: {
          wake() {},
          path: () => pathA,
          drain: async () => {},
          embedQuery: async () => ({ path: pathA, vector: query }),
          close: async () => {},
        },
        fallbackLimit: 2000,
        efSearch: 40,
      },
      account.accountId,
      { query: "which quasar", limit: 5, now: now(), commonTermRows: 1000 },
    );
    if (answer === null) throw new Error("no answer");
    const ids = answer.recalled.map(({ record }) => record.id);
    expect(ids.slice(0, 2)).toEqual([newer.id, older.id]);
    expect(ids).toHaveLength(5);
    // No lexical hit: every returned row was read, and no other.
    expect(read.toSorted()).toEqual(ids.toSorted());
  });

  it("stores each vector with its memory's scope, replacing a vector without one", async () => {
    const account = await accountWith(2, "notes");
    const vectors = [unitVector(3000), unitVector(3001)];
    await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
    // As a vector stored before vectors carried a scope.
    await test.platform.storage.execute(
      sql`update memory_embeddings set scope = null where memory_id = ${account.rows[1].id}`,
    );
    await memories.putEmbeddings(pathA, stored(account.accountId, [account.rows[1]], [vectors[1]]));
    const scopes = await test.platform.storage.execute<{ scope: string | null }>(
      sql`select scope from memory_embeddings where account_id = ${account.accountId} order by memory_id`,
    );
    expect(scopes.map((row) => row.scope)).toEqual(["notes", "notes"]);
  });

  planTest(
    "searches one scope by the vectors' own scope, a large one through the HNSW index and a small one exactly, and finds vectors stored without one",
    async () => {
      const account = await accountWith(20);
      const work = await memories.insertMany(
        account.accountId,
        Array.from({ length: 5 }, (_, index) => memoryWrite(`work ${index} of ${account.accountId}`, "work")),
      );
      const workRows = work.map((row, index) => ({
        id: row.id,
        contentHash: hash(`work ${index} of ${account.accountId}`),
      }));
      const all = [...account.rows, ...workRows];
      const vectors = all.map((_, index) => unitVector(4000 + index));
      await memories.putEmbeddings(pathA, stored(account.accountId, all, vectors));
      // One vector of each scope as stored before vectors carried a scope.
      for (const row of [account.rows[3], workRows[2]])
        await test.platform.storage.execute(
          sql`update memory_embeddings set scope = null where memory_id = ${row.id}`,
        );
      const query = unitVector(3999);
      const candidates = all.map((row, index) => ({ id: row.id, vector: vectors[index] }));
      const workIds = new Set(workRows.map((row) => row.id));
      // Fewer rows allowed for an exact scan than the account has: the HNSW index answers within
      // "default" (most of the account), the scope's own vectors within "work".
      const options = { fallbackLimit: 10, efSearch: 64, limit: 10 };
      const inWork = await nearest(account.accountId, query, { ...options, scope: "work" });
      expect(inWork.map((row) => row.id)).toEqual(
        exact(
          query,
          candidates.filter((candidate) => workIds.has(candidate.id)),
          10,
        ).map((row) => row.id),
      );
      const inDefault = await nearest(account.accountId, query, { ...options, scope: "default" });
      expect(inDefault.map((row) => row.id)).toEqual(
        exact(
          query,
          candidates.filter((candidate) => !workIds.has(candidate.id)),
          10,
        ).map((row) => row.id),
      );
      // When each row was said, on both paths: written then (no document date), or its document's date.
      expect(inWork.map((row) => row.saidAt)).toEqual(inWork.map((row) => row.updatedAt));
      const saidAt = new Map(account.rows.map((row) => [row.id, row.saidAt]));
      expect(inDefault.map((row) => row.saidAt)).toEqual(inDefault.map((row) => saidAt.get(row.id)));
      expect(await nearest(account.accountId, query, { ...options, scope: "travel" })).toEqual([]);
    },
  );

  planTest(
    "compares a small scope's vectors exactly, and every vector when too few of its nearest are live",
    async () => {
      const account = await accountWith(40);
      const texts = Array.from({ length: 12 }, (_, index) => `work ${index} of ${account.accountId}`);
      const work = await memories.insertMany(
        account.accountId,
        texts.map((text) => memoryWrite(text, "work")),
      );
      const workRows = work.map((row, index) => ({ id: row.id, contentHash: hash(texts[index]) }));
      const query = unitVector(5999);
      // The work rows lie around the query, the default ones anywhere.
      const workVectors = workRows.map((_, index) => near(query, unitVector(6000 + index), 0.5 + index / 10));
      await memories.putEmbeddings(
        pathA,
        stored(
          account.accountId,
          [...account.rows, ...workRows],
          [...account.rows.map((_, index) => unitVector(6100 + index)), ...workVectors],
        ),
      );
      const { pool, statements, searchIds, usedHnsw } = recordingStore();
      try {
        const search = (scope: string, limit: number) =>
          searchIds(account.accountId, query, { scope, limit });
        const live = (superseded: Set<string>) =>
          workRows
            .map((row, index) => ({ id: row.id, vector: workVectors[index] }))
            .filter((row) => !superseded.has(row.id));

        // 12 of 52 rows: the scope's vectors, compared exactly, without the graph.
        expect(await search("work", 3)).toEqual(exact(query, live(new Set()), 3).map((row) => row.id));
        expect(usedHnsw()).toBe(false);
        expect(statements).toHaveLength(2);

        // The 5 nearest superseded: of the 6 nearest vectors checked, one is live, so every vector
        // of the scope is compared, and the answer is still the 3 nearest live rows.
        const nearestFive = exact(query, live(new Set()), 5).map((row) => row.id);
        await memories.supersede(account.accountId, nearestFive, workRows[11].id, now());
        expect(await search("work", 3)).toEqual(
          exact(query, live(new Set(nearestFive)), 3).map((row) => row.id),
        );
        expect(usedHnsw()).toBe(false);
        expect(statements).toHaveLength(3);

        // "default" holds most of the account: the HNSW index answers.
        expect(await search("default", 3)).toHaveLength(3);
        expect(usedHnsw()).toBe(true);
      } finally {
        await pool.end();
      }
    },
  );

  planTest(
    "compares a small account's vectors exactly when most of the table is other accounts'",
    async () => {
      const crowd = await accountWith(300);
      const account = await accountWith(12);
      const query = unitVector(7999);
      const crowdVectors = crowd.rows.map((_, index) => near(query, unitVector(8000 + index), 0.3));
      const vectors = account.rows.map((_, index) => near(query, unitVector(8400 + index), 1 + index / 10));
      await memories.putEmbeddings(pathA, stored(crowd.accountId, crowd.rows, crowdVectors));
      await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
      // PostgreSQL's estimate of the table's rows, which the choice reads.
      await test.platform.storage.execute("analyze memory_embeddings");
      const { pool, statements, searchIds, usedHnsw } = recordingStore();
      try {
        const search = (accountId: string) => searchIds(accountId, query, { limit: 5 });
        // 12 of 312 vectors: the account's own, compared exactly, without the graph.
        expect(await search(account.accountId)).toEqual(
          exact(
            query,
            account.rows.map((row, index) => ({ id: row.id, vector: vectors[index] })),
            5,
          ).map((row) => row.id),
        );
        expect(usedHnsw()).toBe(false);
        expect(statements).toHaveLength(2);
        // 300 of them: the HNSW index.
        expect(await search(crowd.accountId)).toHaveLength(5);
        expect(usedHnsw()).toBe(true);
      } finally {
        await pool.end();
      }
    },
  );

  planTest(
    "stores and finds vectors past half precision's range (a provider that does not normalize)",
    async () => {
      const account = await accountWith(12);
      // A million times a unit vector of 16 dimensions: components far past half precision's 65,504.
      const vectors = account.rows.map((_, index) =>
        unitVector(6000 + index).map((value) => value * 1_000_000),
      );
      await memories.putEmbeddings(pathA, stored(account.accountId, account.rows, vectors));
      const { pool, statements, recording } = recordingStore();
      try {
        const answer = await recording.nearest(
          account.accountId,
          {
            path: pathA,
            vector: vectors[4].map((value) => value * 3),
            limit: 3,
            includeSuperseded: false,
            fallbackLimit: 1,
            efSearch: 64,
          },
          now(),
        );
        expect(statements.some(({ sql }) => sql.includes("set_config('hnsw.ef_search'"))).toBe(true);
        expect(answer[0]).toEqual(expect.objectContaining({ id: account.rows[4].id }));
        expect(answer[0].similarity).toBeCloseTo(1, 5);
      } finally {
        await pool.end();
      }
    },
  );

  planTest(
    "replaces an index of the path built otherwise by the path's own, built before the old one goes",
    async () => {
      const account = await accountWithVectors(20, 5000);
      const ownName = hnswIndexName(pathA);
      const indexes = async () =>
        (
          await test.platform.storage.execute<{ indexname: string }>(
            "select indexname from pg_indexes where tablename = 'memory_embeddings' and indexname like 'memory_embeddings_hnsw_%' order by indexname",
          )
        ).map((row) => row.indexname);
      // What an older server left: the path's index under another build's name (single precision).
      await test.platform.storage.execute(
        `alter index ${ownName} rename to memory_embeddings_hnsw_olderbuild`,
      );
      expect(await indexes()).toEqual(["memory_embeddings_hnsw_olderbuild"]);
      // This process made sure of the index when it stored the vectors; a restarted one has not.
      await test.close();
      test = await createTestPlatform(target, { databaseUrl: database?.url });
      memories = test.platform.storage.memories;
      expect(await memories.dropOtherEmbeddingPaths(pathA, 10)).toBe(0);
      expect(await indexes()).toEqual([ownName]);
      expect(await nearest(account.accountId, unitVector(5003), { fallbackLimit: 10, limit: 1 })).toEqual([
        expect.objectContaining({ id: account.rows[3].id }),
      ]);
    },
  );

  planTest(
    "builds the index concurrently: a forget goes on while the build waits, and an index a dead build left is built again",
    async () => {
      const account = await accountWithVectors(30, 7000);
      const ownName = hnswIndexName(pathA);
      const validity = async () =>
        (
          await test.platform.storage.execute<{ valid: boolean }>(
            sql`select indisvalid as valid from pg_index where indexrelid = to_regclass(${ownName})`,
          )
        ).map((row) => row.valid);
      // What an older server left: the path's vectors under another build's index. A restarted
      // server builds the path's own, over the rows already there.
      await test.platform.storage.execute(
        `alter index ${ownName} rename to memory_embeddings_hnsw_olderbuild`,
      );
      await test.close();
      test = await createTestPlatform(target, { databaseUrl: database?.url });
      memories = test.platform.storage.memories;
      const writer = new pg.Client({ connectionString: database?.url });
      await writer.connect();
      try {
        // A transaction writing the table, which any build waits for.
        await writer.query("begin");
        await writer.query("lock table memory_embeddings in row exclusive mode");
        const first = stored(account.accountId, [account.rows[0]], [unitVector(7000)]);
        const building = memories.putEmbeddings(pathA, first);
        building.catch(() => {});
        const waitingBuild = () =>
          test.platform.storage.execute<{ pid: number }>(
            "select pid from pg_stat_activity where datname = current_database() and query ilike 'create index%' and wait_event_type = 'Lock'",
          );
        const [builder] = await eventually(async () => {
          const found = await waitingBuild();
          return found.length > 0 ? found : undefined;
        });
        // A build that locked the table against writes would hold this forget until it ended.
        const forgotten = await test.request(`/v1/memory/${account.rows[1].id}`, {
          method: "DELETE",
          credential: account.key,
        });
        expect(forgotten.status).toBe(204);
        expect((await waitingBuild()).map((row) => row.pid)).toEqual([builder.pid]);
        // The build dies (its server killed, its connection cut): its index is left, invalid.
        await test.platform.storage.execute(sql`select pg_terminate_backend(${builder.pid})`);
        await expect(building).rejects.toThrow();
        await writer.query("commit");
        expect(await validity()).toEqual([false]);
        // The next use builds it again, whole.
        await memories.putEmbeddings(pathA, first);
        expect(await validity()).toEqual([true]);
        expect(await nearest(account.accountId, unitVector(7003), { fallbackLimit: 10, limit: 1 })).toEqual([
          expect.objectContaining({ id: account.rows[3].id }),
        ]);
      } finally {
        await writer.end();
      }
    },
  );

  it("drops the vectors of every other path in chunks", async () => {
    const account = await accountWithVectors(3, 800);
    await memories.putEmbeddings(
      pathB,
      stored(
        account.accountId,
        account.rows,
        account.rows.map((_, index) => unitVector(900 + index)),
      ),
    );
    const countOn = async (path: EmbeddingPath) =>
      Number(
        (
          await test.platform.storage.execute<{ total: number | string }>(
            sql`select count(*) as total from memory_embeddings where model_id = ${path.modelId} and dimensions = ${path.dimensions} and version = ${path.version}`,
          )
        )[0].total,
      );
    const before = await countOn(pathA);
    expect(before).toBeGreaterThanOrEqual(3);
    let dropped = 0;
    for (
      let chunk = await memories.dropOtherEmbeddingPaths(pathB, 2);
      chunk > 0;
      chunk = await memories.dropOtherEmbeddingPaths(pathB, 2)
    ) {
      expect(chunk).toBeLessThanOrEqual(2);
      dropped += chunk;
    }
    expect(dropped).toBeGreaterThanOrEqual(before);
    expect(await countOn(pathA)).toBe(0);
    expect(await memories.embeddedCount(account.accountId, undefined, pathB, now())).toBe(3);
    if (target === "postgresql") {
      const indexes = (
        await test.platform.storage.execute<{ indexname: string }>(
          "select indexname from pg_indexes where tablename = 'memory_embeddings' and indexname like 'memory_embeddings_hnsw_%'",
        )
      ).map((row) => row.indexname);
      expect(indexes).toEqual([hnswIndexName(pathB)]);
    }
  });
});

/** SQLite: every file under the data directory after a checkpoint; PostgreSQL: every table and index file after VACUUM FULL. */
async function storedFiles(test: TestPlatform): Promise<string[]> {
  if (test.databaseUrl) return postgresRelationFiles(test.databaseUrl);
  await test.platform.storage.execute("pragma wal_checkpoint(TRUNCATE)");
  return filesUnder(test.dataDir);
}

describe.each(storageTargets)("forget leaves no vector byte behind on %s", (target) => {
  it("no stored file holds the forgotten memory's vector, while a kept one's is still found", async () => {
    const test = await createTestPlatform(target);
    try {
      const account = await createAccountWithKey(test);
      const memories = test.platform.storage.memories;
      const contents = [`vault entry ${crypto.randomUUID()}`, `greenhouse entry ${crypto.randomUUID()}`];
      const rows = await memories.insertMany(
        account.accountId,
        contents.map((content) => memoryWrite(content)),
      );
      // Random floats: their 64 bytes occur nowhere else.
      const [forgotten, kept] = [0, 1].map(() =>
        normalized(Array.from({ length: dimensions }, () => Math.random() - 0.5)),
      );
      await memories.putEmbeddings(
        pathA,
        rows.map((row, index) => ({
          accountId: account.accountId,
          memoryId: row.id,
          contentHash: hash(contents[index]),
          vector: [forgotten, kept][index],
        })),
      );
      const needle = vectorBytes(forgotten);
      expect((await filesHolding(await storedFiles(test), needle)).length).toBeGreaterThan(0);
      const response = await test.request(`/v1/memory/${rows[0].id}`, {
        method: "DELETE",
        credential: account.key,
      });
      expect(response.status).toBe(204);
      // PostgreSQL's VACUUM FULL keeps a deleted row while any transaction of the cluster (other
      // suites run beside this one) may still see it: rewritten again until the horizon passes it.
      let files = await storedFiles(test);
      for (let attempt = 1; attempt < 30 && (await filesHolding(files, needle)).length > 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        files = await storedFiles(test);
      }
      expect(await filesHolding(files, needle)).toEqual([]);
      expect((await filesHolding(files, vectorBytes(kept))).length).toBeGreaterThan(0);
    } finally {
      await test.close();
    }
  });
});

describe.each(storageTargets)("the upgrade to session context on %s", (target) => {
  it("carries the vectors of memories without a session over to version 2, and leaves session memories to the embedder", async () => {
    const test = await createTestPlatform(target);
    try {
      const { memories, execute } = test.platform.storage;
      const account = await createAccountWithKey(test);
      const imported = await test.request("/v1/memory/import", {
        method: "POST",
        credential: account.key,
        json: {
          memories: [
            { content: "The boiler is serviced every March." },
            { content: "Jon: I lost my job last month.", source_session_id: "s1" },
          ],
        },
      });
      expect(imported.status).toBe(201);
      const [alone, turn] = ((await imported.json()) as { memories: Array<{ id: string }> }).memories.map(
        (memory) => memory.id,
      );
      const versionOne = { ...pathA, version: 1 };
      const versionTwo = { ...pathA, version: 2 };
      const work = await memories.embeddingWork(versionOne, 100, new Date());
      await memories.putEmbeddings(versionOne, vectorsFor(work, 60));
      const vectorOf = async (memoryId: string, version: number) =>
        (
          await execute<{ embedding: unknown; scope: string | null }>(
            sql`select embedding, scope from memory_embeddings where memory_id = ${memoryId} and version = ${version}`,
          )
        ).map((row) => [
          String(
            row.embedding instanceof Uint8Array ? Buffer.from(row.embedding).toString("hex") : row.embedding,
          ),
          row.scope,
        ]);

      // The migration's statement, as an older database meets it; twice changes nothing more.
      await execute(carriedOverVectors);
      await execute(carriedOverVectors);
      expect(await vectorOf(alone, 2)).toEqual(await vectorOf(alone, 1));
      expect(await vectorOf(alone, 2)).toHaveLength(1);
      expect(await vectorOf(turn, 2)).toEqual([]);
      expect(
        (await memories.embeddingWork(versionTwo, 100, new Date()))
          .filter((item) => item.accountId === account.accountId)
          .map((item) => item.memoryId),
      ).toEqual([turn]);
      expect(await memories.embeddedCount(account.accountId, undefined, versionTwo, new Date())).toBe(1);
    } finally {
      await test.close();
    }
  });
});
