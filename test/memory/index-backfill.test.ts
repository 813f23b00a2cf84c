/**
 * Memories stored before the inverted index existed are indexed when the store opens: with the
 * index emptied the way an older database has it, `indexUnposted` rebuilds it and search gives
 * the very same answer again. The migration to stemmed terms (0019) empties it the same way. On
 * both databases.
 */
import { describe, expect, it } from "vitest";
import { memoryStemmedTerms } from "../../plugins/storage/migrations/0019-memory-stemmed-terms.ts";
import { memoryFoldedTerms } from "../../plugins/storage/migrations/0022-memory-folded-terms.ts";
import { storageTargets } from "../support/platforms.ts";
import { createMemoryPlatform, embeddingsMode, type MemoryOut, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("index backfill on %s", (target) => {
  it("indexes rows that have no postings and answers as before", async () => {
    const test = await createMemoryPlatform(target);
    try {
      const { memory } = await newAccount(test);
      for (const content of [
        "The boiler service is booked for the first Monday of March.",
        "Nadia prefers the boiler room door kept shut.",
        "March rent goes out on the first.",
      ]) {
        await memory.remember({ content });
      }
      const strip = (found: { memories: MemoryOut[] }) =>
        found.memories.map((row) => [row.id, (row as MemoryOut & { score: number }).score]);
      const before = strip(await memory.search("boiler March"));
      expect(before).toHaveLength(3);

      const { execute, memories } = test.platform.storage;
      for (const statement of [
        "delete from memory_postings",
        "delete from memory_terms",
        "update memories set index_length = null",
        "update memory_counts set total_length = 0",
      ]) {
        await execute(statement);
      }
      // Lexically the rows are gone from search; with embeddings on their vectors still find them
      // (the missing postings are counted by indexUnposted just below, in both modes).
      if (!embeddingsMode) expect((await memory.search("boiler March")).memories).toEqual([]);
      expect(await memories.indexUnposted()).toBe(3);
      expect(await memories.indexUnposted()).toBe(0);
      expect(strip(await memory.search("boiler March"))).toEqual(before);
    } finally {
      await test.close();
    }
  });

  it("indexes every row again under its stems after the stemmed-terms migration", async () => {
    const test = await createMemoryPlatform(target);
    try {
      const { memory } = await newAccount(test);
      for (const content of [
        "Caroline: Researching adoption agencies this week.",
        "Melanie painted a sunrise over the lake.",
        "The boiler service is booked for March.",
      ]) {
        await memory.remember({ content });
      }
      const strip = (found: { memories: MemoryOut[] }) =>
        found.memories.map((row) => [row.content, (row as MemoryOut & { score: number }).score]);
      const before = strip(await memory.search("What did Caroline research?"));
      expect(before.map(([content]) => content)).toEqual([
        "Caroline: Researching adoption agencies this week.",
      ]);

      const { dialect, execute, memories } = test.platform.storage;
      const indexedLength = async () =>
        Number((await execute("select sum(total_length) as total from memory_counts"))[0].total);
      const lengthBefore = await indexedLength();
      for (const statement of memoryStemmedTerms[dialect]) await execute(statement);
      expect(await indexedLength()).toBe(0);
      if (!embeddingsMode) expect((await memory.search("What did Caroline research?")).memories).toEqual([]);
      expect(await memories.indexUnposted()).toBe(3);
      expect(strip(await memory.search("What did Caroline research?"))).toEqual(before);
      expect((await memory.search("paintings")).memories.map((row) => row.content)).toEqual([
        "Melanie painted a sunrise over the lake.",
      ]);
      expect(await indexedLength()).toBe(lengthBefore);
    } finally {
      await test.close();
    }
  });

  it("indexes every row again without accents, written dates as ISO, after the folded-terms migration", async () => {
    const test = await createMemoryPlatform(target);
    try {
      const { memory } = await newAccount(test);
      for (const content of [
        "Priya's manager is Tomás García, who moved to Zürich.",
        "I write C++ and C# every day.",
        "The office is at Müllerstraße 12.",
        "The contract renewal is due on 2026-03-14.",
        "Dentist appointment on March 20, 2026 at 3pm.",
      ]) {
        await memory.remember({ content });
      }
      const { dialect, execute, memories } = test.platform.storage;
      for (const statement of memoryFoldedTerms[dialect]) await execute(statement);
      expect(await memories.indexUnposted()).toBe(5);
      const found = async (query: string) => (await memory.search(query)).memories.map((row) => row.content);
      expect(await found("Tomas Garcia Zurich")).toEqual([
        "Priya's manager is Tomás García, who moved to Zürich.",
      ]);
      expect(await found("C++")).toEqual(["I write C++ and C# every day."]);
      expect(await found("c#")).toEqual(["I write C++ and C# every day."]);
      expect(await found("Mullerstrasse")).toEqual(["The office is at Müllerstraße 12."]);
      // A date written out finds the same day written in ISO form first, not another day of March.
      expect((await found("March 14, 2026"))[0]).toBe("The contract renewal is due on 2026-03-14.");
      expect((await found("2026-03-20"))[0]).toBe("Dentist appointment on March 20, 2026 at 3pm.");
    } finally {
      await test.close();
    }
  });
});
