/**
 * Every memory route of docs/api.md#memory over REST: defaults, each documented limit as a 422
 * (and the value just inside it as a success), route order before `/{memory_id}`, and 404
 * `memory_not_found` for unknown ids. Runs on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createMemoryPlatform,
  embeddingFigures,
  errorCode,
  type MemoryClient,
  newAccount,
  rowsHolding,
} from "./memory-client.ts";

describe.each(storageTargets)("memory routes and limits on %s", (target) => {
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  const post = (path: string, json: unknown) => memory.send(path, { method: "POST", json });
  const rejects = async (path: string, json: unknown) =>
    expect(await errorCode(await post(path, json), 422)).toBe("validation_error");
  const rejectsQuery = async (path: string) =>
    expect(await errorCode(await memory.send(path), 422)).toBe("validation_error");

  it("fills every default of MemoryCreateRequest and MemoryOut", async () => {
    const created = await memory.remember({ content: "Defaults are documented in the contract." });
    expect(created).toMatchObject({
      scope: "default",
      kind: "fact",
      metadata: {},
      source_session_id: null,
      expires_at: null,
      source_content: null,
      document_date: null,
      event_dates: [],
      importance: 0.5,
      access_count: 0,
      last_accessed_at: null,
      superseded_at: null,
      superseded_by_id: null,
    });
    // A version-4 UUID (CONTRACT.md §2), whatever its first 48 bits hold (plugins/storage/memory-ids.ts).
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.created_at).toBe(created.updated_at);
    expect(await memory.get(created.id)).toEqual(created);
  });

  it("stores every field as given, reading a date-time without offset as UTC", async () => {
    const created = await memory.remember({
      content: "Every field round-trips through the API.",
      scope: "fields",
      kind: "instruction",
      metadata: { nested: { list: [1, "two", null] }, flag: true },
      source_session_id: "s".repeat(36),
      expires_at: "2999-01-01T00:00:00+02:00",
      source_content: "the original text",
      document_date: "2024-03-05T10:00:00",
      event_dates: ["2024-03-05", "next week"],
      importance: 1,
    });
    expect(created).toMatchObject({
      scope: "fields",
      kind: "instruction",
      metadata: { nested: { list: [1, "two", null] }, flag: true },
      source_session_id: "s".repeat(36),
      expires_at: "2998-12-31T22:00:00.000Z",
      source_content: "the original text",
      document_date: "2024-03-05T10:00:00.000Z",
      event_dates: ["2024-03-05", "next week"],
      importance: 1,
    });
  });

  it("accepts each MemoryCreateRequest limit exactly and refuses one past it", async () => {
    const content = (length: number) => `limit ${crypto.randomUUID()} `.padEnd(length, "x");
    await memory.remember({ content: content(65_536) });
    await rejects("/v1/memory", { content: content(65_537) });
    await rejects("/v1/memory", { content: "" });
    await rejects("/v1/memory", { content: " \n\t " }); // nothing to find, as ingest has it
    await rejects("/v1/memory", {});
    await memory.remember({ content: content(20), scope: "s".repeat(128) });
    await rejects("/v1/memory", { content: content(20), scope: "s".repeat(129) });
    await rejects("/v1/memory", { content: content(20), scope: "" });
    await rejects("/v1/memory", { content: content(20), kind: "opinion" });
    // {"a":"…"} is 8 bytes of JSON around the value.
    await memory.remember({ content: content(20), metadata: { a: "m".repeat(32 * 1024 - 8) } });
    await rejects("/v1/memory", { content: content(20), metadata: { a: "m".repeat(32 * 1024 - 7) } });
    await rejects("/v1/memory", { content: content(20), metadata: ["not", "an", "object"] });
    await memory.remember({ content: content(20), source_session_id: "i".repeat(36) });
    await rejects("/v1/memory", { content: content(20), source_session_id: "i".repeat(37) });
    await memory.remember({ content: content(20), source_content: "c".repeat(65_536) });
    await rejects("/v1/memory", { content: content(20), source_content: "c".repeat(65_537) });
    await memory.remember({
      content: content(20),
      event_dates: Array.from({ length: 16 }, (_, i) => `d${i}`),
    });
    await rejects("/v1/memory", {
      content: content(20),
      event_dates: Array.from({ length: 17 }, (_, i) => `d${i}`),
    });
    await memory.remember({ content: content(20), importance: 0 });
    await rejects("/v1/memory", { content: content(20), importance: 1.1 });
    await rejects("/v1/memory", { content: content(20), importance: -0.1 });
    await rejects("/v1/memory", { content: content(20), importance: "high" });
    // 2024-02-30 once rolled over to March 1; year 0001 came back from PostgreSQL as 2001.
    const invalid = ["yesterday", "2024-13-45T00:00:00Z", "2024-01-01T25:61:00Z", "2024-02-30", "2023-02-29"];
    for (const bad of [...invalid, "0000-01-01T00:00:00Z", "0001-01-01", "0999-12-31", "", 12]) {
      await rejects("/v1/memory", { content: content(20), expires_at: bad });
      await rejects("/v1/memory", { content: content(20), document_date: bad });
    }
  });

  it("enforces the ingest limits", async () => {
    await rejects("/v1/memory/ingest", { content: "" });
    await rejects("/v1/memory/ingest", { content: "word ".repeat(52_429) });
    await rejects("/v1/memory/ingest", { content: "Some words to ingest here.", kind: "opinion" });
    await rejects("/v1/memory/ingest", { content: "Some words to ingest here.", scope: "s".repeat(129) });
    await rejects("/v1/memory/ingest", { content: "Some words to ingest here.", document_date: "soon" });
    await rejects("/v1/memory/ingest", {
      content: "Some words to ingest here.",
      metadata: { a: "m".repeat(32 * 1024) },
    });
    // At the limit, and kept whole: four pieces of 64 Ki (the same text, so one memory).
    const accepted = await memory.ingest({ content: "x".repeat(262_144), scope: "big-ingest" });
    expect(accepted.memories.map((row) => row.content.length)).toEqual(Array(4).fill(65_536));
  });

  it("enforces the import batch limits with a clear message", async () => {
    const item = (index: number) => ({ content: `imported item number ${index}`, scope: "import-limits" });
    const tooMany = await post("/v1/memory/import", {
      memories: Array.from({ length: 501 }, (_, i) => item(i)),
    });
    const body = await tooMany.clone().json();
    expect(await errorCode(tooMany, 422)).toBe("validation_error");
    expect(JSON.stringify(body)).toMatch(/500/);
    await rejects("/v1/memory/import", { memories: [] });
    await rejects("/v1/memory/import", {});
    const relation = { source_memory_id: "a", target_memory_id: "b", relation_type: "related" };
    await rejects("/v1/memory/import", {
      memories: [{ ...item(1), id: "a" }],
      relations: Array.from({ length: 2001 }, () => relation),
    });
    await rejects("/v1/memory/import", {
      memories: [item(1)],
      relations: [{ ...relation, relation_type: "likes" }],
    });
    await rejects("/v1/memory/import", { memories: [item(1)], relations: [{ ...relation, confidence: 2 }] });
    await rejects("/v1/memory/import", { memories: [{ ...item(1), id: "i".repeat(37) }] });
    const accepted = await memory.import({
      memories: Array.from({ length: 500 }, (_, i) => item(i)),
      relations: Array.from({ length: 2000 }, () => relation),
    });
    expect(accepted.memories).toHaveLength(500);
    expect(accepted.source_session_id).toBeNull();
  });

  it("enforces the query-string limits of search, list, profile and relations", async () => {
    const { id } = await memory.remember({ content: "A row to hang relations limits on." });
    await rejectsQuery("/v1/memory/search");
    await rejectsQuery("/v1/memory/search?q=");
    await rejectsQuery(`/v1/memory/search?q=${"q".repeat(401)}`);
    expect(rowsHolding((await memory.search("q".repeat(400))).memories, "q".repeat(400))).toEqual([]);
    for (const limit of ["0", "51", "ten", "1.5"])
      await rejectsQuery(`/v1/memory/search?q=row&limit=${limit}`);
    expect((await memory.search("row", { limit: 50 })).query).toBe("row");
    await rejectsQuery(`/v1/memory/search?q=row&scope=${"s".repeat(129)}`);
    for (const limit of ["0", "101"]) {
      await rejectsQuery(`/v1/memory?limit=${limit}`);
      await rejectsQuery(`/v1/memory/profile?limit=${limit}`);
      await rejectsQuery(`/v1/memory/${id}/relations?limit=${limit}`);
    }
    await rejectsQuery("/v1/memory?offset=-1");
    await rejectsQuery("/v1/memory?include_superseded=maybe");
    await rejectsQuery(`/v1/memory?scope=${"s".repeat(129)}`);
    await rejectsQuery(`/v1/memory/metrics?scope=${"s".repeat(129)}`);
    await rejectsQuery(`/v1/memory/export?scope=${"s".repeat(129)}`);
    expect(await memory.list({ limit: 100, offset: 0, include_superseded: true })).not.toHaveLength(0);
    expect((await memory.relations(id, 100)).memory_id).toBe(id);
  });

  it("pages the list newest first with limit and offset", async () => {
    const scope = "paging";
    const written = [];
    for (let index = 0; index < 5; index++) {
      written.push(await memory.remember({ content: `paging row ${index} quux${index}`, scope }));
    }
    const all = await memory.list({ scope });
    expect(all.map((row) => row.id).sort()).toEqual(written.map((row) => row.id).sort());
    const times = all.map((row) => row.updated_at);
    expect([...times].sort().reverse()).toEqual(times);
    const pages = [
      ...(await memory.list({ scope, limit: 2 })),
      ...(await memory.list({ scope, limit: 2, offset: 2 })),
      ...(await memory.list({ scope, limit: 2, offset: 4 })),
    ];
    expect(pages.map((row) => row.id)).toEqual(all.map((row) => row.id));
    expect(await memory.list({ scope, offset: 5 })).toEqual([]);
  });

  it("matches /metrics, /search, /profile and /export before /{memory_id}", async () => {
    const metrics = await memory.metrics();
    expect(metrics).toHaveProperty("total_memories");
    expect(metrics).toMatchObject(embeddingFigures(metrics.total_memories));
    expect(await errorCode(await memory.send("/v1/memory/search"), 422)).toBe("validation_error");
    expect(await memory.profile()).toHaveProperty("static");
    expect(await memory.export()).toHaveProperty("relations");
  });

  it("reads an id written in upper case as the same memory", async () => {
    const stored = await memory.remember({ content: `Upper case ids ${crypto.randomUUID()}` });
    const upper = stored.id.toUpperCase();
    expect((await memory.get(upper)).id).toBe(stored.id);
    expect((await memory.relations(upper)).memory_id).toBe(stored.id);
    expect(await memory.forget(upper)).toBeNull();
  });

  it("answers 404 memory_not_found for an unknown id on get, relations and delete", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid", "x".repeat(64)]) {
      expect(await errorCode(await memory.send(`/v1/memory/${id}`), 404)).toBe("memory_not_found");
      expect(await errorCode(await memory.send(`/v1/memory/${id}/relations`), 404)).toBe("memory_not_found");
      expect(await errorCode(await memory.send(`/v1/memory/${id}`, { method: "DELETE" }), 404)).toBe(
        "memory_not_found",
      );
    }
  });
});
