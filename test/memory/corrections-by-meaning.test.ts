/**
 * Corrections caught by meaning over the REST API (docs/memory.md#relations): with embeddings on,
 * a statement that corrects an earlier one sharing few words ("The CEO is Alice Wong." → "The
 * CEO is Bob Stone.") supersedes it once the embedder has stored its vector, and a look-alike
 * ("The CFO is Alice Wong.") stays current; with embeddings off the lexical rules alone decide,
 * and they leave the pair as it is. On both stores, in both modes of the memory suite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, embeddingsMode, type MemoryClient, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("corrections caught by meaning on %s", (target) => {
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test?.close());

  it(
    embeddingsMode
      ? "supersedes the statement a new one corrects once its vector is stored, and no look-alike"
      : "leaves a correction that shares few words to the lexical rules: not superseded",
    async () => {
      const scope = "leadership";
      const alice = await memory.remember({ content: "The CEO is Alice Wong.", scope });
      const lookalike = await memory.remember({ content: "The CFO is Alice Wong.", scope });
      const bob = await memory.remember({ content: "The CEO is Bob Stone.", scope });
      const updates = async () =>
        (await memory.relations(bob.id)).relations
          .filter((edge) => edge.relation_type === "updates")
          .map((edge) => edge.target_memory_id);
      if (embeddingsMode) {
        const superseded = await eventually(async () => {
          const row = await memory.get(alice.id);
          return row.superseded_by_id === null ? undefined : row;
        });
        expect(superseded.superseded_by_id).toBe(bob.id);
        expect(await updates()).toEqual([alice.id]);
        // Every vector stored and checked: the look-alike is still current.
        await test.platform.memoryEmbedder?.drain();
        expect((await memory.get(lookalike.id)).superseded_by_id).toBeNull();
        expect((await memory.get(bob.id)).superseded_by_id).toBeNull();
        const current = (await memory.search("Who is the CEO?", { scope })).memories.map((row) => row.id);
        expect(current).toContain(bob.id);
        expect(current).not.toContain(alice.id);
      } else {
        // A read settles the lexical links, and nothing else comes later without embeddings.
        expect((await memory.get(alice.id)).superseded_by_id).toBeNull();
        expect((await memory.get(lookalike.id)).superseded_by_id).toBeNull();
        expect(await updates()).toEqual([]);
        expect(test.platform.memoryEmbedder).toBeNull();
      }
    },
  );
});
