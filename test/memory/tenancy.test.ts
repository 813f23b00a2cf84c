/**
 * Tenancy: two accounts using the same scope names, on every memory route. Account B never
 * sees, finds, relates to, supersedes, exports or forgets A's memories; A's ids answer B with
 * exactly the 404 `memory_not_found` of an id that does not exist. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryOut, newAccount } from "./memory-client.ts";

type Account = Awaited<ReturnType<typeof newAccount>>;

describe.each(storageTargets)("memory tenancy on %s", (target) => {
  let test: TestPlatform;
  let alice: Account;
  let bob: Account;
  const aliceRows: MemoryOut[] = [];
  const scope = "shared-scope";

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    alice = await newAccount(test);
    bob = await newAccount(test);
    for (const content of [
      "Charles Darwin is married to Amala Paul.",
      "Amala Paul is a citizen of Belgium.",
      "My favorite color is blue.",
      "The zorblatt reactor runs on helium.",
    ]) {
      aliceRows.push(await alice.memory.remember({ content, scope, kind: "preference" }));
    }
    aliceRows.push(
      ...(
        await alice.memory.ingest({
          content: "Alice plans to visit Lisbon next spring. Alice likes old trams a lot.",
          scope,
        })
      ).memories,
    );
    expect((await alice.memory.relations(aliceRows[1].id)).relations).not.toEqual([]);
  });
  afterAll(() => test.close());

  /** The error body without its request id, to compare two 404s. */
  const errorBody = async (response: Response) => {
    expect(response.status).toBe(404);
    const body = await response.json();
    return body.error;
  };

  it("answers B with the 404 of a missing id on get, relations and delete of A's rows", async () => {
    const missing = crypto.randomUUID();
    for (const row of aliceRows) {
      for (const [path, method] of [
        [`/v1/memory/${row.id}`, "GET"],
        [`/v1/memory/${row.id}/relations`, "GET"],
        [`/v1/memory/${row.id}`, "DELETE"],
      ]) {
        const foreign = await errorBody(await bob.memory.send(path, { method }));
        const absent = await errorBody(await bob.memory.send(path.replace(row.id, missing), { method }));
        expect(foreign).toEqual(absent);
        expect(foreign.code).toBe("memory_not_found");
      }
    }
    for (const row of aliceRows) expect((await alice.memory.get(row.id)).content).toBe(row.content);
  });

  it("never lists, searches, profiles, counts or exports A's rows for B", async () => {
    const own = await bob.memory.remember({
      content: "Bob keeps a small notebook.",
      scope,
      kind: "preference",
    });
    for (const parameters of [{}, { scope }, { scope, include_superseded: true }]) {
      expect((await bob.memory.list(parameters)).map((row) => row.id)).toEqual([own.id]);
    }
    for (const q of [
      "Charles Darwin",
      "Amala Paul Belgium",
      "favorite color",
      "zorblatt reactor helium",
      "Lisbon trams",
      "What was my favorite color before?",
    ]) {
      expect((await bob.memory.search(q)).memories).toEqual([]);
      expect((await bob.memory.search(q, { scope })).memories).toEqual([]);
    }
    const profile = await bob.memory.profile({ scope });
    expect([...profile.static, ...profile.dynamic].map((row) => row.id)).toEqual([own.id]);
    expect((await bob.memory.metrics()).total_memories).toBe(1);
    expect((await bob.memory.metrics(scope)).by_kind).toEqual({ preference: 1 });
    const exported = await bob.memory.export();
    expect(exported.memories.map((row) => row.id)).toEqual([own.id]);
    expect(exported.relations).toEqual([]);
    await bob.memory.forget(own.id);
  });

  it("keeps identical content in the same scope as separate rows per account", async () => {
    const copy = await bob.memory.remember({ content: aliceRows[2].content, scope, kind: "preference" });
    expect(copy.id).not.toBe(aliceRows[2].id);
    expect(copy.access_count).toBe(0);
    const found = await bob.memory.search("favorite color blue", { scope });
    expect(found.memories.map((row) => row.id)).toEqual([copy.id]);
    expect((await alice.memory.get(aliceRows[2].id)).access_count).toBe(aliceRows[2].access_count);
    await bob.memory.forget(copy.id);
    expect((await alice.memory.get(aliceRows[2].id)).id).toBe(aliceRows[2].id);
  });

  it("never relates to or supersedes A's rows from B's writes", async () => {
    const update = await bob.memory.remember({
      content: "My favorite color is now green.",
      scope,
      kind: "preference",
    });
    const related = await bob.memory.remember({
      content: "Amala Paul moved to Charles Darwin's hometown.",
      scope,
    });
    const ingested = await bob.memory.ingest({
      content: "The zorblatt reactor now runs on argon instead. Charles Darwin likes it.",
      scope,
    });
    for (const row of [update, related, ...ingested.memories]) {
      for (const edge of (await bob.memory.relations(row.id)).relations) {
        expect(aliceRows.map((alices) => alices.id)).not.toContain(edge.target_memory_id);
      }
    }
    for (const row of aliceRows) {
      const current = await alice.memory.get(row.id);
      expect(current.superseded_at).toBeNull();
      expect(current.superseded_by_id).toBeNull();
    }
    expect((await alice.memory.list({ scope })).map((row) => row.id).sort()).toEqual(
      aliceRows.map((row) => row.id).sort(),
    );
  });

  it("maps B's imports only inside the batch, never onto A's ids", async () => {
    const [target, source] = aliceRows;
    const imported = await bob.memory.import({
      memories: [
        { id: target.id, content: "Imported with A's id as its batch id.", scope },
        { id: "own", content: "Imported with its own batch id.", scope, superseded_by_id: source.id },
      ],
      relations: [
        { source_memory_id: "own", target_memory_id: source.id, relation_type: "related" },
        { source_memory_id: source.id, target_memory_id: target.id, relation_type: "updates" },
        { source_memory_id: "own", target_memory_id: target.id, relation_type: "extends" },
      ],
    });
    const [first, second] = imported.memories;
    expect(first.id).not.toBe(target.id);
    expect(second.superseded_by_id).toBeNull();
    expect((await bob.memory.relations(second.id)).relations).toEqual([
      expect.objectContaining({
        source_memory_id: second.id,
        target_memory_id: first.id,
        relation_type: "extends",
      }),
    ]);
    const aliceTarget = await alice.memory.get(target.id);
    expect(aliceTarget.content).toBe(target.content);
    expect(aliceTarget.superseded_at).toBeNull();
    const aliceEdges = (await alice.memory.relations(source.id)).relations.map(
      (edge) => edge.target_memory_id,
    );
    expect(aliceEdges).not.toContain(first.id);
    expect(aliceEdges).not.toContain(second.id);
    const aliceExport = await alice.memory.export();
    expect(aliceExport.memories.map((row) => row.id).sort()).toEqual(aliceRows.map((row) => row.id).sort());
    const aliceIds = new Set(aliceRows.map((row) => row.id));
    for (const edge of aliceExport.relations) {
      expect(aliceIds.has(edge.source_memory_id) && aliceIds.has(edge.target_memory_id)).toBe(true);
    }
  });

  it("lets A still find, relate and forget its own rows afterwards", async () => {
    const found = await alice.memory.search("zorblatt reactor", { scope });
    expect(found.memories[0].id).toBe(aliceRows[3].id);
    expect(found.memories.every((row) => aliceRows.some((own) => own.id === row.id))).toBe(true);
    await alice.memory.forget(aliceRows[3].id);
    expect((await alice.memory.search("zorblatt reactor", { scope })).memories).toEqual([]);
    expect((await bob.memory.search("zorblatt reactor", { scope })).memories.length).toBeGreaterThan(0);
  });
});
