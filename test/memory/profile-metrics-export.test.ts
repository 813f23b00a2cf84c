/**
 * Profile (static and dynamic split over the newest 4×limit rows), metrics counts, and export /
 * import: an export imported into a fresh account exports again to the same content, relations
 * and supersession included; import is all or nothing; unknown and self relation endpoints are
 * skipped. On SQLite and PostgreSQL, on a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createMemoryPlatform,
  type ExportPayload,
  embeddingFigures,
  errorCode,
  newAccount,
} from "./memory-client.ts";

/** An export with every id replaced by the identity (scope, kind, content) it stands for, sorted. */
function portable(payload: ExportPayload) {
  const identities = new Map(
    payload.memories.map((row) => [row.id, `${row.scope}|${row.kind}|${row.content}`]),
  );
  const name = (id: string | null) => (id === null ? null : (identities.get(id) ?? `dangling ${id}`));
  const memories = payload.memories
    .map(({ id, superseded_by_id: successor, ...row }) => ({
      ...row,
      identity: name(id),
      superseded_by: name(successor),
    }))
    .sort((a, b) => String(a.identity).localeCompare(String(b.identity)));
  const relations = payload.relations
    .map((edge) => ({
      ...edge,
      source_memory_id: name(edge.source_memory_id),
      target_memory_id: name(edge.target_memory_id),
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { memories, relations };
}

describe.each(storageTargets)("memory profile, metrics, export and import on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
  });
  afterAll(() => test.close());

  it("splits the profile into static and dynamic kinds over the newest 4×limit rows", async () => {
    const { memory } = await newAccount(test);
    const oldGoal = await memory.remember({
      content: "Goal: learn to juggle five balls.",
      kind: "goal",
      scope: "me",
    });
    clock.advance(1000);
    const statics = [];
    for (const [index, kind] of [
      "fact",
      "preference",
      "instruction",
      "fact",
      "preference",
      "instruction",
      "fact",
      "fact",
    ].entries()) {
      statics.push(
        await memory.remember({
          content: `Stable statement number ${index} about quokkas${index}.`,
          kind,
          scope: "me",
        }),
      );
      clock.advance(1000);
    }
    const note = await memory.remember({
      content: "A note about the garden shed.",
      kind: "note",
      scope: "me",
    });
    clock.advance(1000);
    await memory.remember({ content: "A summary elsewhere.", kind: "summary", scope: "other" });
    const profile = await memory.profile({ scope: "me", limit: 2 });
    // The newest 8 rows are the note and 7 static ones: the old goal is past 4×limit.
    expect(profile.static.map((row) => row.id)).toEqual([statics[7].id, statics[6].id]);
    expect(profile.dynamic.map((row) => row.id)).toEqual([note.id]);
    const wide = await memory.profile({ scope: "me" });
    expect(wide.static.map((row) => row.id)).toEqual(statics.map((row) => row.id).reverse());
    expect(wide.dynamic.map((row) => row.id)).toEqual([note.id, oldGoal.id]);
    const everywhere = await memory.profile();
    expect(everywhere.dynamic.map((row) => row.kind)).toEqual(["summary", "note", "goal"]);
  });

  it("counts live, current memories by kind, per scope", async () => {
    const { memory } = await newAccount(test);
    expect(await memory.metrics()).toEqual({
      total_memories: 0,
      by_kind: {},
      ...embeddingFigures(0),
    });
    await memory.remember({ content: "The deployment uses blue-green rollout.", scope: "ops" });
    clock.advance(1000);
    await memory.remember({ content: "The deployment uses canary rollout.", scope: "ops" });
    await memory.remember({
      content: "Always page the on-call engineer first.",
      scope: "ops",
      kind: "instruction",
    });
    await memory.remember({ content: "Expired reminder.", scope: "ops", expires_at: "2020-01-01T00:00:00Z" });
    await memory.remember({ content: "Ship the mobile app by June.", scope: "app", kind: "goal" });
    await memory.remember({ content: "Ship the web app by May.", scope: "app", kind: "goal" });
    expect(await memory.metrics("ops")).toMatchObject({
      total_memories: 2,
      by_kind: { fact: 1, instruction: 1 },
      ...embeddingFigures(2),
    });
    expect(await memory.metrics("app")).toMatchObject({ total_memories: 2, by_kind: { goal: 2 } });
    expect(await memory.metrics()).toMatchObject({
      total_memories: 4,
      by_kind: { fact: 1, instruction: 1, goal: 2 },
      ...embeddingFigures(4),
    });
    expect((await memory.metrics("nothing-here")).total_memories).toBe(0);
  });

  it("exports, imports into a fresh account and exports again to the same content", async () => {
    const source = await newAccount(test);
    const { memory } = source;
    await memory.remember({
      content: "My favorite color is blue.",
      kind: "preference",
      scope: "home",
      importance: 0.9,
    });
    clock.advance(1000);
    await memory.remember({ content: "My favorite color is now green.", kind: "preference", scope: "home" });
    await memory.remember({
      content: "Charles Darwin is married to Amala Paul.",
      scope: "home",
      metadata: { source: "wiki", tags: ["a", "b"] },
    });
    clock.advance(1000);
    await memory.remember({
      content: "Amala Paul is a citizen of Belgium.",
      scope: "home",
      event_dates: ["2024-01-02", "Someday"],
    });
    await memory.ingest({
      content: "We plan to repaint the kitchen on 2024-09-01. The kitchen paint must be washable.",
      scope: "home",
      document_date: "2024-08-01T00:00:00Z",
      source_session_id: "s-1",
    });
    await memory.remember({
      content: "Future expiry keeps a row.",
      scope: "work",
      expires_at: "2999-01-01T00:00:00Z",
      source_content: "orig",
    });
    await memory.remember({
      content: "Expired rows are not exported.",
      scope: "work",
      expires_at: "2020-01-01T00:00:00Z",
    });
    await memory.import({
      memories: [
        { id: "w1", content: "The work laptop is a ThinkPad.", scope: "work" },
        { id: "h1", content: "The home laptop is a MacBook.", scope: "home" },
      ],
      relations: [
        { source_memory_id: "h1", target_memory_id: "w1", relation_type: "derives", confidence: 0.8 },
      ],
    });
    const first = await memory.export();
    expect(first.memories.map((row) => row.content)).not.toContain("Expired rows are not exported.");
    expect(first.memories.some((row) => row.superseded_by_id !== null)).toBe(true);
    expect(first.relations.map((edge) => edge.relation_type).sort()).toEqual(
      expect.arrayContaining(["derives", "related", "updates"]),
    );
    for (const edge of first.relations)
      expect(Object.keys(edge).sort()).toEqual([
        "confidence",
        "relation_type",
        "source_memory_id",
        "target_memory_id",
      ]);
    // A scoped export drops the edge whose other end is in another scope.
    const home = await memory.export("home");
    expect(home.memories.every((row) => row.scope === "home")).toBe(true);
    expect(home.relations.some((edge) => edge.relation_type === "derives")).toBe(false);

    const fresh = await newAccount(test);
    const imported = await fresh.memory.import(first);
    expect(imported.memories).toHaveLength(first.memories.length);
    expect(imported.memories.map((row) => row.content)).toEqual(first.memories.map((row) => row.content));
    const sourceIds = new Set(first.memories.map((row) => row.id));
    expect(imported.memories.some((row) => sourceIds.has(row.id))).toBe(false);
    const second = await fresh.memory.export();
    expect(portable(second)).toEqual(portable(first));
    expect((await fresh.memory.search("favorite color")).memories.map((row) => row.content)).toEqual([
      "My favorite color is now green.",
    ]);
  });

  it("writes nothing when one item of the batch is invalid", async () => {
    const { memory } = await newAccount(test);
    const items = Array.from({ length: 10 }, (_, index) => ({
      id: `m${index}`,
      content: `All or nothing item ${index}.`,
    }));
    for (const broken of [
      { ...items[7], importance: 2 },
      { ...items[7], content: "" },
      { ...items[7], kind: "opinion" },
      { ...items[7], created_at: "not a date" },
    ]) {
      const memories = items.map((item, index) => (index === 7 ? broken : item));
      const response = await memory.send("/v1/memory/import", { method: "POST", json: { memories } });
      expect(await errorCode(response, 422)).toBe("validation_error");
    }
    const badRelation = await memory.send("/v1/memory/import", {
      method: "POST",
      json: {
        memories: items,
        relations: [{ source_memory_id: "m1", target_memory_id: "m2", relation_type: "likes" }],
      },
    });
    expect(await errorCode(badRelation, 422)).toBe("validation_error");
    expect(await memory.list({ include_superseded: true })).toEqual([]);
    expect((await memory.metrics()).total_memories).toBe(0);
  });

  it("skips unknown and self relation endpoints, and maps duplicate batch items onto one row", async () => {
    const { memory } = await newAccount(test);
    const result = await memory.import({
      memories: [
        { id: "a", content: "Quokkas live on Rottnest Island.", scope: "zoo" },
        { id: "b", content: "Wombats dig long burrows underground.", scope: "zoo" },
        { id: "c", content: "Quokkas live on Rottnest Island.", scope: "zoo" },
        { content: "An item without a batch id.", scope: "zoo" },
      ],
      relations: [
        { source_memory_id: "a", target_memory_id: "a", relation_type: "related" },
        { source_memory_id: "a", target_memory_id: "c", relation_type: "related" },
        { source_memory_id: "a", target_memory_id: "ghost", relation_type: "related" },
        { source_memory_id: "ghost", target_memory_id: "b", relation_type: "related" },
        { source_memory_id: "b", target_memory_id: "c", relation_type: "derives" },
      ],
    });
    const [a, b, c] = result.memories;
    expect(c.id).toBe(a.id);
    expect(new Set(result.memories.map((row) => row.id)).size).toBe(3);
    expect((await memory.relations(a.id)).relations).toEqual([]);
    const edges = (await memory.relations(b.id)).relations;
    expect(edges).toEqual([
      expect.objectContaining({
        source_memory_id: b.id,
        target_memory_id: a.id,
        relation_type: "derives",
        confidence: 0.5,
      }),
    ]);
    expect((await memory.export("zoo")).relations).toHaveLength(1);
  });
});
