/**
 * POST /v1/memory/ingest end to end (docs/memory.md#ingest): fragments of prose and of a
 * session transcript, dropped and de-duplicated fragments, kinds, event dates resolved against
 * document_date, importance, the whole-document memory, the cap of 50, shared fields on every
 * stored memory, and re-ingest upserting the same rows. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, newAccount } from "./memory-client.ts";

const prose = [
  "I prefer dark roast coffee in the morning.",
  "We plan to migrate the billing database on 2024-07-15!",
  "You must always run the linter before pushing.",
  "In summary, the sprint went well overall.",
  "ok.",
  "The office is in Lisbon near the river?",
  "i prefer DARK roast coffee in the morning.",
].join(" ");

const transcript = [
  "user: Yesterday we shipped version two of the billing service.",
  "assistant: Great news. I will note that the billing service shipped.",
  "user: My sister Anna moved to Porto on March 3, 2024. Thanks!",
  "assistant: ok",
].join("\n");

describe.each(storageTargets)("memory ingest on %s", (target) => {
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  it("cuts prose into fragments with kinds, dates and importance, after the whole document", async () => {
    const result = await memory.ingest({ content: prose, scope: "prose" });
    expect(result.source_session_id).toBeNull();
    const summary = result.memories.map((row) => [row.content, row.kind, row.event_dates, row.importance]);
    expect(summary).toEqual([
      [prose, "fact", ["2024-07-15"], 0.75],
      ["I prefer dark roast coffee in the morning.", "preference", [], 0.5],
      ["We plan to migrate the billing database on 2024-07-15!", "goal", ["2024-07-15"], 0.75],
      ["You must always run the linter before pushing.", "instruction", [], 0.7],
      ["In summary, the sprint went well overall.", "summary", [], 0.5],
      ["The office is in Lisbon near the river?", "fact", [], 0.5],
    ]);
    for (const row of result.memories) {
      expect(row.source_content).toBe(row.content);
      expect(row.scope).toBe("prose");
    }
    const listed = await memory.list({ scope: "prose", include_superseded: true });
    expect(listed.map((row) => row.id).sort()).toEqual(result.memories.map((row) => row.id).sort());
  });

  it("keeps speakers on transcript turns and resolves relative dates against document_date", async () => {
    const result = await memory.ingest({
      content: transcript,
      scope: "session",
      source_session_id: "session-42",
      document_date: "2024-03-13T09:00:00Z",
      metadata: { channel: "chat" },
      expires_at: "2999-01-01T00:00:00Z",
    });
    expect(result.source_session_id).toBe("session-42");
    const [whole, ...fragments] = result.memories;
    expect(whole.content).toBe(transcript.trim().replace(/[ \t]+/g, " "));
    expect(fragments.map((row) => [row.content, row.kind, row.event_dates])).toEqual([
      ["user: Yesterday we shipped version two of the billing service.", "fact", ["2024-03-12"]],
      ["assistant: I will note that the billing service shipped.", "goal", []],
      ["user: My sister Anna moved to Porto on March 3, 2024.", "fact", ["2024-03-03"]],
    ]);
    expect(whole.event_dates.sort()).toEqual(["2024-03-03", "2024-03-12"]);
    for (const row of result.memories) {
      expect(row).toMatchObject({
        source_session_id: "session-42",
        document_date: "2024-03-13T09:00:00.000Z",
        metadata: { channel: "chat" },
        expires_at: "2999-01-01T00:00:00.000Z",
      });
    }
    // Without a document date, relative phrases give no date.
    const undated = await memory.ingest({ content: transcript, scope: "session-undated" });
    expect(undated.memories[1].event_dates).toEqual([]);
  });

  it("uses a requested kind for every memory, the whole document included", async () => {
    const result = await memory.ingest({ content: prose, scope: "notes", kind: "note" });
    expect(new Set(result.memories.map((row) => row.kind))).toEqual(new Set(["note"]));
    expect(result.memories).toHaveLength(6);
  });

  it("stores one whole memory when no fragment says enough", async () => {
    const result = await memory.ingest({ content: "  ok thanks!\n\n see you  ", scope: "short" });
    expect(result.memories.map((row) => row.content)).toEqual(["ok thanks!\n\n see you"]);
    const single = await memory.ingest({
      content: "The only sentence here is long enough.",
      scope: "single",
    });
    expect(single.memories.map((row) => row.content)).toEqual(["The only sentence here is long enough."]);
  });

  it("caps fragments at 50, and keeps a document over 8 KiB only as fragments", async () => {
    const sentences = Array.from(
      { length: 70 },
      (_, index) => `Warehouse shelf ${index} stores spare part batch ${index * 7}.`,
    );
    const capped = await memory.ingest({ content: sentences.join(" "), scope: "capped" });
    expect(capped.memories).toHaveLength(51);
    expect(capped.memories[0].content).toBe(sentences.join(" "));
    expect(capped.memories.slice(1).map((row) => row.content)).toEqual(sentences.slice(0, 50));
    const long = Array.from(
      { length: 40 },
      (_, index) => `Paragraph ${index} ${"describes the archive in detail ".repeat(8)}.`,
    );
    const big = await memory.ingest({ content: long.join("\n"), scope: "long" });
    expect(new TextEncoder().encode(long.join("\n")).length).toBeGreaterThan(8192);
    expect(big.memories).toHaveLength(40);
    expect(big.memories.every((row) => row.content.startsWith("Paragraph "))).toBe(true);
    // A text past 64 Ki characters is kept whole, as pieces of at most 64 Ki: nothing is dropped.
    const words = Array.from({ length: 36_000 }, (_, index) => `w${index}`).join(" ");
    const huge = await memory.ingest({ content: words, scope: "huge" });
    expect(words.length).toBeGreaterThan(3 * 65_536);
    expect(huge.memories.length).toBe(4);
    expect(huge.memories.every((row) => row.content.length <= 65_536)).toBe(true);
    expect(huge.memories.map((row) => row.content).join(" ")).toBe(words);
  });

  it("upserts the same rows when the same text is ingested again", async () => {
    const first = await memory.ingest({ content: prose, scope: "again" });
    const second = await memory.ingest({ content: prose, scope: "again", metadata: { pass: 2 } });
    expect(second.memories.map((row) => row.id)).toEqual(first.memories.map((row) => row.id));
    expect(second.memories.every((row) => row.metadata.pass === 2)).toBe(true);
    expect(await memory.list({ scope: "again", include_superseded: true })).toHaveLength(
      first.memories.length,
    );
  });

  it("relates the fragments it stores to what the scope already holds", async () => {
    const scope = "linked";
    const before = await memory.remember({
      content: "My favorite editor is Vim.",
      scope,
      kind: "preference",
    });
    const result = await memory.ingest({
      content: "My favorite editor is now Helix. Charles Darwin wrote the editor manual.",
      scope,
    });
    const helix = result.memories.find((row) => row.content === "My favorite editor is now Helix.");
    expect(helix).toBeDefined();
    expect((await memory.get(before.id)).superseded_by_id).not.toBeNull();
    const edges = (await memory.relations(helix?.id as string)).relations;
    expect(edges).toContainEqual(
      expect.objectContaining({ target_memory_id: before.id, relation_type: "updates" }),
    );
  });
});
