/**
 * GET /v1/memory/{id}/relations (docs/api.md#memory, docs/memory.md#relations): outgoing edges
 * only, strongest first, `limit` honoured, edges to expired targets hidden (superseded targets
 * kept), one edge per (source, target, type), an import batch linked to older live rows only,
 * and no edge survives the forget of either end. On both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("memory relations route on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  it("lists outgoing edges strongest first, honours limit and hides expired targets", async () => {
    const soon = new Date(clock.now().getTime() + 10_000).toISOString();
    const { memories } = await memory.import({
      memories: [
        { id: "hub", content: "The hub memory links to the others.", scope: "graph" },
        { id: "weak", content: "A weakly linked memory.", scope: "graph" },
        { id: "strong", content: "A strongly linked memory.", scope: "graph" },
        { id: "middle", content: "A middling linked memory.", scope: "graph" },
        { id: "fleeting", content: "A memory about to expire.", scope: "graph", expires_at: soon },
      ],
      relations: [
        { source_memory_id: "hub", target_memory_id: "weak", relation_type: "related", confidence: 0.2 },
        { source_memory_id: "hub", target_memory_id: "strong", relation_type: "extends", confidence: 0.9 },
        { source_memory_id: "hub", target_memory_id: "strong", relation_type: "extends", confidence: 0.1 },
        { source_memory_id: "hub", target_memory_id: "middle", relation_type: "derives", confidence: 0.6 },
        { source_memory_id: "hub", target_memory_id: "fleeting", relation_type: "related", confidence: 0.95 },
        { source_memory_id: "weak", target_memory_id: "hub", relation_type: "related", confidence: 0.3 },
      ],
    });
    const [hub, weak, strong, middle, fleeting] = memories;
    const edges = (await memory.relations(hub.id)).relations;
    expect(edges.map((edge) => [edge.target_memory_id, edge.relation_type, edge.confidence])).toEqual([
      [fleeting.id, "related", 0.95],
      [strong.id, "extends", 0.9],
      [middle.id, "derives", 0.6],
      [weak.id, "related", 0.2],
    ]);
    for (const edge of edges) {
      expect(edge.source_memory_id).toBe(hub.id);
      expect(Number.isNaN(Date.parse(edge.created_at as string))).toBe(false);
    }
    expect((await memory.relations(hub.id, 2)).relations.map((edge) => edge.target_memory_id)).toEqual([
      fleeting.id,
      strong.id,
    ]);
    expect((await memory.relations(weak.id)).relations.map((edge) => edge.target_memory_id)).toEqual([
      hub.id,
    ]);
    clock.advance(10_000);
    expect((await memory.relations(hub.id)).relations.map((edge) => edge.target_memory_id)).toEqual([
      strong.id,
      middle.id,
      weak.id,
    ]);
    // The export holds only edges between live rows.
    const exported = await memory.export("graph");
    expect(exported.relations).toHaveLength(4);
  });

  it("links an import's rows to older live rows, never to each other, and a later write to all of them", async () => {
    const scope = "apollo";
    const targets = async (id: string) =>
      (await memory.relations(id)).relations.map((edge) => edge.target_memory_id).sort();
    const older = await memory.remember({ content: "Project Apollo has a launch window in May.", scope });
    const soon = new Date(clock.now().getTime() + 1000).toISOString();
    await memory.remember({ content: "Project Apollo holds a review today.", scope, expires_at: soon });
    clock.advance(2000);
    const { memories: imported } = await memory.import({
      memories: [
        { content: "Project Apollo needs a new booster.", scope },
        { content: "Project Apollo hired two engineers.", scope },
        { content: "Project Apollo picked a landing site.", scope },
      ],
    });
    for (const row of imported) expect(await targets(row.id)).toEqual([older.id]);
    clock.advance(1000);
    const later = await memory.remember({ content: "Project Apollo signed a supplier.", scope });
    expect(await targets(later.id)).toEqual([older.id, ...imported.map((row) => row.id)].sort());
  });

  it("re-imports an export as it was: its rows are not compared with each other", async () => {
    const scope = "reimport";
    await memory.import({
      memories: [
        { id: "a", content: "Alpha service runs Postgres", scope },
        { id: "b", content: "Alpha service runs MySQL now", scope },
      ],
    });
    const exported = await memory.export(scope);
    expect(exported.memories.map((row) => row.superseded_by_id)).toEqual([null, null]);
    for (let round = 0; round < 2; round++) {
      clock.advance(1000);
      await memory.import(exported);
      const live = await memory.list({ scope });
      expect(live.map((row) => row.content).sort()).toEqual(
        exported.memories.map((row) => row.content).sort(),
      );
      expect((await memory.export(scope)).relations).toEqual([]);
    }
  });

  it("makes a superseded memory current again when it is stated again, and only one of the two is live", async () => {
    const scope = "superseded-writes-again";
    const old = await memory.remember({ content: "Alpha service runs Postgres", scope });
    clock.advance(1000);
    const current = await memory.remember({ content: "Alpha service runs MySQL now", scope });
    expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    clock.advance(1000);
    // Writing the old content again merges into the old row, which is linked once more.
    expect((await memory.remember({ content: "Alpha service runs Postgres", scope })).id).toBe(old.id);
    expect((await memory.list({ scope })).map((row) => row.id)).toEqual([old.id]);
    expect((await memory.get(old.id)).superseded_by_id).toBeNull();
    expect((await memory.get(current.id)).superseded_by_id).toBe(old.id);
  });

  it("keeps edges to a superseded target and drops every edge of a forgotten row", async () => {
    const scope = "forgotten-edges";
    const old = await memory.remember({ content: "The backup job runs at midnight.", scope });
    clock.advance(1000);
    const current = await memory.remember({
      content: "The backup job now runs at two in the morning on Hetzner.",
      scope,
    });
    clock.advance(1000);
    const extra = await memory.remember({
      content: "Hetzner bills the backup storage every month.",
      scope,
    });
    const toOld = (await memory.relations(current.id)).relations;
    expect(toOld).toContainEqual(
      expect.objectContaining({ target_memory_id: old.id, relation_type: "updates" }),
    );
    expect((await memory.relations(extra.id)).relations.length).toBeGreaterThan(0);
    await memory.forget(current.id);
    for (const row of [old, extra]) {
      const ends = (await memory.relations(row.id, 100)).relations.flatMap((edge) => [
        edge.source_memory_id,
        edge.target_memory_id,
      ]);
      expect(ends).not.toContain(current.id);
    }
    // Forgetting the correction brings back what it corrected (docs/memory.md#forget): the old
    // row is current again, listed and found, and names no forgotten id.
    expect(await memory.get(old.id)).toMatchObject({ superseded_by_id: null, superseded_at: null });
    expect((await memory.list({ scope })).map((row) => row.id)).toContain(old.id);
    const found = await memory.search("backup job midnight", { scope });
    expect(found.memories[0]?.id).toBe(old.id);
  });
});
