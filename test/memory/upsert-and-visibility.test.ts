/**
 * The upsert rules of docs/memory.md#remember-and-upsert (same id, metadata replaced, event dates
 * unioned case-insensitively, importance max, source content kept, updated_at moves), concurrent
 * duplicates converging on one row, and which routes see expired and superseded rows. On SQLite and
 * PostgreSQL, on a manual clock so "later" and "expired" are exact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, errorCode, type MemoryClient, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("memory upsert and visibility on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  it("upserts an identical memory into the same row with the documented merge rules", async () => {
    const first = await memory.remember({
      content: "The build server lives in the basement rack.",
      scope: "upsert",
      metadata: { origin: "first", keep: "gone after the second write" },
      source_session_id: "session-one",
      source_content: "original source",
      document_date: "2024-05-01T00:00:00Z",
      event_dates: ["2024-05-01", "Next Friday"],
      importance: 0.9,
      expires_at: "2030-01-01T00:00:00Z",
    });
    clock.advance(60_000);
    const second = await memory.remember({
      content: "The build server lives in the basement rack.",
      scope: "upsert",
      metadata: { origin: "second" },
      source_session_id: "session-two",
      event_dates: ["next friday", "2024-06-01"],
      importance: 0.3,
    });
    expect(second.id).toBe(first.id);
    expect(second).toMatchObject({
      metadata: { origin: "second" },
      source_session_id: "session-two",
      source_content: "original source",
      document_date: "2024-05-01T00:00:00.000Z",
      event_dates: ["2024-05-01", "Next Friday", "2024-06-01"],
      importance: 0.9,
      expires_at: null,
      created_at: first.created_at,
    });
    expect(Date.parse(second.updated_at)).toBe(Date.parse(first.updated_at) + 60_000);
    clock.advance(60_000);
    const third = await memory.remember({
      content: "The build server lives in the basement rack.",
      scope: "upsert",
      source_content: "a newer source",
      importance: 0.95,
    });
    expect(third).toMatchObject({
      id: first.id,
      source_content: "a newer source",
      importance: 0.95,
      metadata: {},
    });
    expect(await memory.list({ scope: "upsert" })).toHaveLength(1);
  });

  it("keeps scope and kind in the identity key", async () => {
    const content = "Identity includes the scope and the kind.";
    const base = await memory.remember({ content, scope: "identity" });
    const otherScope = await memory.remember({ content, scope: "identity-2" });
    const otherKind = await memory.remember({ content, scope: "identity", kind: "note" });
    const otherCase = await memory.remember({ content: content.toUpperCase(), scope: "identity" });
    expect(new Set([base.id, otherScope.id, otherKind.id, otherCase.id]).size).toBe(4);
  });

  it("converges concurrent identical writes on one row", async () => {
    const body = { content: `Parallel writes converge ${crypto.randomUUID()}.`, scope: "parallel" };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => memory.send("/v1/memory", { method: "POST", json: body })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses).toEqual(Array(20).fill(201));
    const ids = new Set(await Promise.all(responses.map(async (response) => (await response.json()).id)));
    expect(ids.size).toBe(1);
    const listed = await memory.list({ scope: "parallel", include_superseded: true });
    expect(listed.map((row) => row.id)).toEqual([...ids]);
    expect((await memory.search("parallel writes converge", { scope: "parallel" })).memories).toHaveLength(1);
  });

  it("hides an expired row from every read but lets DELETE remove it", async () => {
    const scope = "expiry";
    const neighbour = await memory.remember({ content: "Kettle descaling happens every month.", scope });
    const expired = await memory.remember({
      content: "Kettle descaling happens every month with vinegar.",
      scope,
      expires_at: "2020-01-01T00:00:00Z",
    });
    expect(expired.expires_at).toBe("2020-01-01T00:00:00.000Z");
    const soon = await memory.remember({
      content: "Kettle descaling reminder expires soon.",
      scope,
      expires_at: new Date(clock.now().getTime() + 1000).toISOString(),
    });
    expect((await memory.get(soon.id)).id).toBe(soon.id);
    clock.advance(1000);
    for (const row of [expired, soon]) {
      expect(await errorCode(await memory.send(`/v1/memory/${row.id}`), 404)).toBe("memory_not_found");
      expect(await errorCode(await memory.send(`/v1/memory/${row.id}/relations`), 404)).toBe(
        "memory_not_found",
      );
    }
    const visible = [neighbour.id];
    expect((await memory.list({ scope, include_superseded: true })).map((row) => row.id)).toEqual(visible);
    expect((await memory.search("kettle descaling", { scope })).memories.map((row) => row.id)).toEqual(
      visible,
    );
    expect((await memory.export(scope)).memories.map((row) => row.id)).toEqual(visible);
    expect((await memory.metrics(scope)).total_memories).toBe(1);
    const profile = await memory.profile({ scope });
    expect([...profile.static, ...profile.dynamic].map((row) => row.id)).toEqual(visible);
    const edges = (await memory.relations(neighbour.id)).relations.map((edge) => edge.target_memory_id);
    expect(edges).not.toContain(expired.id);
    await memory.forget(expired.id);
    await memory.forget(soon.id);
    expect(await errorCode(await memory.send(`/v1/memory/${soon.id}`, { method: "DELETE" }), 404)).toBe(
      "memory_not_found",
    );
  });

  it("revives an expired row when the same memory is written again without expiry", async () => {
    const body = { content: "Expired then written again.", scope: "revive" };
    const expired = await memory.remember({ ...body, expires_at: "2020-01-01T00:00:00Z" });
    const revived = await memory.remember(body);
    expect(revived.id).toBe(expired.id);
    expect(revived.expires_at).toBeNull();
    expect((await memory.get(expired.id)).content).toBe(body.content);
  });

  it("makes a superseded memory current again when it is stated again (blue, green, blue)", async () => {
    const scope = "restated";
    const blue = await memory.remember({ content: "My favorite color is blue.", scope, kind: "preference" });
    clock.advance(1000);
    const green = await memory.remember({
      content: "My favorite color is now green.",
      scope,
      kind: "preference",
    });
    expect((await memory.get(blue.id)).superseded_by_id).toBe(green.id);
    clock.advance(1000);
    const again = await memory.remember({ content: "My favorite color is blue.", scope, kind: "preference" });
    expect(again).toMatchObject({ id: blue.id, superseded_at: null, superseded_by_id: null });
    expect((await memory.get(green.id)).superseded_by_id).toBe(blue.id);
    expect((await memory.list({ scope })).map((row) => row.id)).toEqual([blue.id]);
    expect((await memory.search("favorite color", { scope })).memories.map((row) => row.id)).toEqual([
      blue.id,
    ]);
  });

  it("hides a superseded row from list, profile and metrics but not from get or include_superseded", async () => {
    const scope = "supersede";
    const old = await memory.remember({ content: "The deployment uses blue-green rollout.", scope });
    clock.advance(1000);
    const current = await memory.remember({ content: "The deployment uses canary rollout.", scope });
    const superseded = await memory.get(old.id);
    expect(superseded.superseded_by_id).toBe(current.id);
    expect(superseded.superseded_at).toBe(current.updated_at);
    expect(current.superseded_at).toBeNull();
    const edges = (await memory.relations(current.id)).relations;
    expect(edges).toContainEqual(
      expect.objectContaining({
        source_memory_id: current.id,
        target_memory_id: old.id,
        relation_type: "updates",
      }),
    );
    expect((await memory.list({ scope })).map((row) => row.id)).toEqual([current.id]);
    expect((await memory.list({ scope, include_superseded: true })).map((row) => row.id)).toEqual([
      current.id,
      old.id,
    ]);
    const profile = await memory.profile({ scope });
    expect(profile.static.map((row) => row.id)).toEqual([current.id]);
    expect(await memory.metrics(scope)).toMatchObject({ total_memories: 1, by_kind: { fact: 1 } });
    const found = (await memory.search("deployment rollout", { scope })).memories.map((row) => row.id);
    expect(found).toEqual([current.id]);
    expect((await memory.export(scope)).memories.map((row) => row.id).sort()).toEqual(
      [old.id, current.id].sort(),
    );
  });
});
