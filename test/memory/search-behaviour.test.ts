/**
 * Search and relations as docs/memory.md describes them: the supersession examples and
 * history-aware queries, the shared-entity "related" edge, exact phrases first, scores in
 * [0, 1) with 6 dp, access counting, empty results for irrelevant queries and hostile input
 * that never fails. On SQLite and PostgreSQL, on a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { eventually } from "../support/eventually.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, type MemoryOut, newAccount } from "./memory-client.ts";

const hostileQueries = [
  '"',
  '"unbalanced quote',
  "'single' \"double\" `back`",
  "AND",
  "OR NOT",
  "tea AND coffee OR NOT milk",
  "NEAR(tea coffee, 2)",
  "tea*",
  "*",
  "^tea",
  "content:tea",
  "tokens:tea",
  "(tea",
  "tea)",
  "((()))",
  "- + ~ ! @ # $ % ^ & * ( ) _ = { } [ ] | \\ : ; < > , . ? /",
  "☕🍵🫖 tea 🫖",
  "👩‍👩‍👧‍👦",
  "緑茶が好きです",
  "الشاي الأخضر",
  "हरी चाय पसंद है",
  "Зелёный чай",
  "the of and a to is",
  "   ",
  "x".repeat(400),
  "tea ".repeat(100),
  "%00%27; drop table memories; --",
  "\u0000",
  "\uFFFD\uFEFF\u200B",
  "zz74656120",
  "café CAFÉ cafe\u0301",
];

describe.each(storageTargets)("memory search behaviour on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  const ids = (rows: MemoryOut[]) => rows.map((row) => row.id);

  it("supersedes blue-green with canary and keeps the old row reachable for history", async () => {
    const scope = "rollout";
    const old = await memory.remember({ content: "The deployment uses blue-green rollout.", scope });
    clock.advance(1000);
    const current = await memory.remember({ content: "The deployment uses canary rollout.", scope });
    expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    expect(ids((await memory.search("deployment rollout", { scope })).memories)).toEqual([current.id]);
    const history = await memory.search("What was the previous deployment rollout?", { scope });
    expect(ids(history.memories).sort()).toEqual([current.id, old.id].sort());
  });

  it("reads the account's own writes linked: a search straight after a remember sees the supersession", async () => {
    for (const [cluster, before, after] of [
      ["alpha", "blue-green", "canary"],
      ["beta", "canary", "rolling"],
      ["gamma", "rolling", "shadow"],
    ]) {
      const scope = `rollout-${cluster}`;
      const old = await memory.remember({ content: `The ${cluster} cluster uses ${before} rollout.`, scope });
      clock.advance(1000);
      const current = await memory.remember({
        content: `The ${cluster} cluster uses ${after} rollout.`,
        scope,
      });
      // No read in between: the search itself finds the second write queued for linking.
      expect(ids((await memory.search(`${cluster} cluster rollout`, { scope })).memories)).toEqual([
        current.id,
      ]);
      expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    }
  });

  it("excludes the superseded favorite color, and returns it first when asked what it was before", async () => {
    const scope = "color";
    const blue = await memory.remember({ content: "My favorite color is blue.", scope, kind: "preference" });
    clock.advance(1000);
    const green = await memory.remember({
      content: "My favorite color is now green.",
      scope,
      kind: "preference",
    });
    const superseded = await memory.get(blue.id);
    expect(superseded).toMatchObject({ superseded_by_id: green.id, superseded_at: green.updated_at });
    const edges = (await memory.relations(green.id)).relations;
    expect(edges).toEqual([expect.objectContaining({ target_memory_id: blue.id, relation_type: "updates" })]);
    expect(ids((await memory.search("favorite color", { scope })).memories)).toEqual([green.id]);
    const before = await memory.search("What was my favorite color before green?", { scope });
    expect(before.memories[0].id).toBe(blue.id);
    expect(before.memories[0].superseded_by_id).toBe(green.id);
  });

  it("relates Charles Darwin's marriage to Amala Paul's citizenship through the shared entity", async () => {
    const scope = "entities";
    const married = await memory.remember({ content: "Charles Darwin is married to Amala Paul.", scope });
    clock.advance(1000);
    const citizen = await memory.remember({ content: "Amala Paul is a citizen of Belgium.", scope });
    const { relations } = await memory.relations(citizen.id);
    expect(relations).toHaveLength(1);
    expect(relations[0]).toMatchObject({
      source_memory_id: citizen.id,
      target_memory_id: married.id,
      relation_type: "related",
    });
    expect(relations[0].confidence).toBeGreaterThanOrEqual(0.35);
    expect(relations[0].confidence).toBeLessThanOrEqual(1);
    expect((await memory.relations(married.id)).relations).toEqual([]);
    expect((await memory.get(married.id)).superseded_at).toBeNull();
    // The relation brings the marriage along for a question about Belgium's citizens.
    expect(ids((await memory.search("Who is a citizen of Belgium?", { scope })).memories)).toContain(
      married.id,
    );
  });

  it("ranks an exact phrase first with a positive score, every score in [0, 1) with 6 dp", async () => {
    const scope = "phrases";
    const texts = [
      "The release train leaves every second Tuesday.",
      "Every Tuesday the team reviews the release notes.",
      "The second release of the train app shipped late.",
      "Tuesday is the day the train to Leeds is cheapest.",
      "A release train bundles features every second week.",
    ];
    const rows = [];
    for (const content of texts) {
      rows.push(await memory.remember({ content, scope }));
      clock.advance(1000);
    }
    for (const [index, content] of texts.entries()) {
      const phrase = content.replace(/\.$/, "");
      const found = await memory.search(phrase, { scope });
      expect(found.memories[0].id, phrase).toBe(rows[index].id);
      expect(found.memories[0].score).toBeGreaterThan(0);
      for (const hit of found.memories) {
        expect(hit.score).toBeGreaterThanOrEqual(0);
        expect(hit.score).toBeLessThan(1);
        expect(Math.round((hit.score as number) * 1e6) / 1e6).toBe(hit.score);
      }
      const scores = found.memories.map((hit) => hit.score as number);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
    expect((await memory.search("release train", { scope, limit: 2 })).memories).toHaveLength(2);
    expect((await memory.search("release train", { scope: "elsewhere" })).memories).toEqual([]);
  });

  it("ranks what Maya said about herself above small talk sharing as many of the question's words", async () => {
    const scope = "conversation";
    // Small talk reuses a few words over and over, as chat logs do.
    const common = ["family", "weekend", "busy", "kids", "tired", "home", "lovely", "week"];
    const line = (index: number) =>
      [0, 1, 2, 3].map((offset) => common[(index + offset * 3) % common.length]).join(" ");
    for (let index = 0; index < 16; index++) {
      await memory.remember({ content: `Jon: ${line(index)}, how about you?`, scope });
      clock.advance(1000);
    }
    const smallTalk = [];
    for (let index = 0; index < 4; index++) {
      smallTalk.push(await memory.remember({ content: `Maya: ${line(index)} here too!`, scope }));
      clock.advance(1000);
    }
    await memory.remember({ content: "Maya: Work is fine, same old same old.", scope });
    clock.advance(1000);
    const fact = await memory.remember({
      content: "Maya: Another night shift in the ER tomorrow, twelve hours of triage, wish me luck",
      scope,
    });
    clock.advance(1000);
    await memory.remember({ content: `Maya: ${line(5)}, kids tired, home at last.`, scope });
    const found = ids((await memory.search("What does Maya do for work?", { scope, limit: 10 })).memories);
    // The fact shares only the name with the question, as the small talk below it does.
    expect(found).toContain(fact.id);
    for (const row of smallTalk) expect(found.indexOf(fact.id)).toBeLessThan(found.indexOf(row.id));

    const dated = await memory.remember({
      content: "Maya: I ran my first half marathon last Saturday!",
      scope,
    });
    clock.advance(1000);
    const undated = await memory.remember({
      content: "Maya: The half marathon route goes past the harbour and the old mill.",
      scope,
    });
    const when = ids((await memory.search("When did Maya run the half marathon?", { scope })).memories);
    expect(when.slice(0, 2)).toEqual([dated.id, undated.id]);
  });

  it("counts an access on the rows it returns, and only on those", async () => {
    const scope = "access";
    const hit = await memory.remember({ content: "The spare key hangs behind the pantry door.", scope });
    const miss = await memory.remember({ content: "Bicycle tyres need air every fortnight.", scope });
    clock.advance(5000);
    const first = await memory.search("spare key pantry", { scope });
    expect(ids(first.memories)).toEqual([hit.id]);
    expect(first.memories[0]).toMatchObject({ access_count: 1, last_accessed_at: clock.now().toISOString() });
    clock.advance(5000);
    await memory.search("where is the spare key", { scope });
    const stored = await memory.get(hit.id);
    expect(stored).toMatchObject({ access_count: 2, last_accessed_at: clock.now().toISOString() });
    expect(stored.updated_at).toBe(hit.updated_at);
    expect(await memory.get(miss.id)).toMatchObject({ access_count: 0, last_accessed_at: null });
  });

  it("writes the access counts of many searches together, shortly, and shows each exactly", async () => {
    const scope = "access-batch";
    const { accountId, memory: own } = await newAccount(test);
    const hit = await own.remember({ content: "The boiler manual sits in the hall cupboard.", scope });
    const shown: number[] = [];
    for (let round = 0; round < 3; round++) {
      const found = await own.search("boiler manual", { scope });
      shown.push(found.memories[0].access_count);
    }
    const together = await Promise.all(
      Array.from({ length: 5 }, () => own.search("boiler manual hall", { scope })),
    );
    shown.push(...together.map((found) => found.memories[0].access_count));
    // Each search shows the stored count plus the counts not written yet, its own included.
    expect(shown.slice(0, 3)).toEqual([1, 2, 3]);
    expect(shown.slice(3).sort()).toEqual([4, 5, 6, 7, 8]);
    // Written without any read of the account asking for them: the database holds all eight.
    const stored = await eventually(async () => {
      const row = await test.platform.storage.memories.getAny(accountId, hit.id);
      return row?.accessCount === 8 ? row : undefined;
    });
    expect(stored.lastAccessedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(await own.get(hit.id)).toMatchObject({ access_count: 8 });
  });

  it("gives the same answer to the same query twice, whatever other queries ran in between", async () => {
    const scope = "repeat";
    // Equal-looking rows: reading one of them must not lift it above its twins next time.
    for (const room of ["kitchen", "hallway", "garage", "attic", "cellar", "porch"]) {
      await memory.remember({ content: `The spare torch lives in the ${room} drawer.`, scope });
    }
    const strip = (found: { memories: MemoryOut[] }) =>
      found.memories.map((row) => ({ id: row.id, score: (row as MemoryOut & { score: number }).score }));
    const first = strip(await memory.search("spare torch drawer", { scope, limit: 3 }));
    for (const other of ["torch kitchen", "spare drawer", "torch", "attic torch", "spare torch drawer"]) {
      await memory.search(other, { scope, limit: 2 });
    }
    expect(strip(await memory.search("spare torch drawer", { scope, limit: 3 }))).toEqual(first);
  });

  it("returns nothing, not the newest rows, for a query with nothing relevant", async () => {
    for (const q of ["quantum chromodynamics lattice", "the of and", "?", "🫠"]) {
      const found = await memory.search(q);
      expect(found).toEqual({ query: q, memories: [] });
    }
  });

  it("never fails on hostile query text", async () => {
    await memory.remember({
      content: "Green tea and coffee with milk: café au lait ☕ 緑茶が好きです الشاي الأخضر हरी चाय",
      scope: "hostile",
    });
    for (const q of hostileQueries) {
      for (const scope of [undefined, "hostile"]) {
        const response = await memory.send(`/v1/memory/search${memory.query({ q, scope })}`);
        const text = await response.text();
        expect(response.status, `${JSON.stringify(q)}: ${text}`).toBe(200);
        const body = JSON.parse(text);
        expect(body.query).toBe(q);
        expect(Array.isArray(body.memories)).toBe(true);
      }
    }
    for (const q of ["緑茶", "الشاي", "हरी चाय", "café", "☕ coffee"]) {
      expect((await memory.search(q, { scope: "hostile" })).memories, q).toHaveLength(1);
    }
  });
});
