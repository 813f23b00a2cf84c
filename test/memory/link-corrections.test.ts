/**
 * Corrections caught by meaning on both databases (core/memory/link-corrections.ts): a memory with
 * its vector supersedes the earlier statement it corrects among its nearest rows of the same
 * scope, and nothing else: not a look-alike, not a statement too far in meaning, not another
 * scope's or a later row, not a row beyond its nearest few. Vectors are fixed, their cosines set.
 * Wired to the embedder (`afterStore`), only new statements correct: a backfill and a re-embed for
 * a new model never do.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { EmbeddingPath, MemoryStore } from "../../core/index.ts";
import { silentLogger, systemClock } from "../../core/index.ts";
import { correctionCandidates, detectRelationByMeaning } from "../../core/memory/corrections.ts";
import { createMemoryEmbedder } from "../../core/memory/embedder.ts";
import { createCorrectionLinker, planCorrections } from "../../core/memory/link-corrections.ts";
import { applyLinks } from "../../core/memory/link-writes.ts";
import { detectRelation } from "../../core/memory/relations.ts";
import type { EmbeddingProvider } from "../../core/ports/embeddings.ts";
import { memoryWrite } from "../support/memory-writes.ts";
import {
  createAccountWithKey,
  createTestDatabase,
  createTestPlatform,
  embeddingsMode,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

const dimensions = 16;
const path: EmbeddingPath = { modelId: "cairn/test-model", dimensions, version: 1 };
const search = { path, fallbackLimit: 1000, efSearch: 100 };

/** A unit vector whose cosine with the first axis is `similarity`, the rest on axis `axis`. */
function at(similarity: number, axis: number): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[0] = similarity;
  vector[axis] = Math.sqrt(1 - similarity * similarity);
  return vector;
}

describe.each(storageTargets)("corrections caught by meaning on %s", (target) => {
  let test: TestPlatform;
  let memories: MemoryStore;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    if (target === "postgresql") database = await createTestDatabase();
    test = await createTestPlatform(target, {
      databaseUrl: database?.url,
      // The vectors are the test's own, on its own path: a background embedder would drop them
      // once its path covered every row.
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000", SVC_MEMORY_EMBEDDINGS_ENABLED: "false" },
    });
    memories = test.platform.storage.memories;
  });
  afterAll(async () => {
    await test?.close();
    await database?.drop();
  });

  /** Writes the rows a second apart in order, each with its vector; answers their records. */
  async function write(
    accountId: string,
    rows: Array<{ content: string; vector: Float32Array; scope?: string }>,
  ) {
    const start = Date.now() - 600_000;
    const writes = rows.map((row, index) =>
      memoryWrite(row.content, row.scope, new Date(start + index * 1000)),
    );
    const ids = (await memories.insertMany(accountId, writes)).map((row) => row.id);
    await memories.putEmbeddings(
      path,
      ids.map((memoryId, index) => ({
        accountId,
        memoryId,
        contentHash: writes[index].contentHash,
        vector: rows[index].vector,
      })),
    );
    return Promise.all(ids.map(async (id) => (await memories.getAny(accountId, id))!));
  }

  it("supersedes the statement a new one corrects, and nothing else", async () => {
    const { accountId } = await createAccountWithKey(test);
    const [corrected, lookalike, far, otherScope, newer, later] = await write(accountId, [
      { content: "The CEO is Alice Wong.", vector: at(0.65, 1) },
      { content: "The CFO is Alice Wong.", vector: at(0.75, 2) },
      { content: "The CEO is Carol Diaz.", vector: at(0.3, 3) },
      { content: "The CEO is Dana Fox.", vector: at(0.95, 4), scope: "other" },
      { content: "The CEO is Bob Stone.", vector: at(1, 5) },
      { content: "The CEO is Erin Moss.", vector: at(0.9, 6) },
    ]);
    const plan = await planCorrections(memories, accountId, newer, at(1, 5), search, new Date());
    expect(plan.edges.map((edge) => [edge.targetMemoryId, edge.relationType, edge.confidence])).toEqual([
      [corrected.id, "updates", 0.65],
    ]);
    await memories.transaction((store) => applyLinks(store, accountId, plan));
    expect((await memories.getAny(accountId, corrected.id))?.supersededById).toBe(newer.id);
    for (const row of [lookalike, far, otherScope, later])
      expect((await memories.getAny(accountId, row.id))?.supersededById).toBeNull();
    expect(
      (await memories.relations(accountId, newer.id, 10, new Date())).map((edge) => edge.targetMemoryId),
    ).toEqual([corrected.id]);
  });

  it("compares with the nearest rows only", async () => {
    const { accountId } = await createAccountWithKey(test);
    const fillers = Array.from({ length: correctionCandidates }, (_, index) => ({
      content: `Garden note ${index + 1} about tomato seedlings.`,
      vector: at(0.9, 6 + (index % 10)),
    }));
    const [corrected, ...rest] = await write(accountId, [
      { content: "The CEO is Alice Wong.", vector: at(0.65, 1) },
      ...fillers,
      { content: "The CEO is Bob Stone.", vector: at(1, 5) },
    ]);
    const newer = rest.at(-1)!;
    // Ten rows nearer than the corrected one: it is not among the candidates.
    expect((await planCorrections(memories, accountId, newer, at(1, 5), search, new Date())).edges).toEqual(
      [],
    );
    expect(corrected.supersededAt).toBeNull();
  });

  it("corrects nothing in a backfill or a re-embed for a new model, only in new statements", async () => {
    const { accountId } = await createAccountWithKey(test);
    // Per model, each text's vector: cosines are products of the first coordinates.
    let model = "cairn/model-one";
    const vectors: Record<string, Record<string, Float32Array>> = {
      "cairn/model-one": {
        "The CEO is Alice Wong.": at(0.8, 1),
        "The CEO is Bob Stone.": at(0.8, 2),
        "The CEO is Carol Diaz.": at(0.8, 3),
        // Far apart for this model: no correction.
        "Deployments happen every Tuesday.": at(0.4, 4),
        "Deployments happen every Thursday.": at(0.4, 5),
      },
      "cairn/model-two": {
        "The CEO is Alice Wong.": at(0.8, 1),
        "The CEO is Bob Stone.": at(0.8, 2),
        "The CEO is Carol Diaz.": at(0.8, 3),
        "Deployments happen every Tuesday.": at(0.95, 4),
        "Deployments happen every Thursday.": at(0.95, 5),
        "Deployments happen every Friday.": at(0.95, 6),
      },
    };
    const provider: EmbeddingProvider = {
      destination: "model_server",
      modelId: null,
      dimensions: null,
      maxBatchSize: 8,
      async embed(texts) {
        const vectorsOf = vectors[model] as Record<string, Float32Array>;
        return { modelId: model, dimensions, vectors: texts.map((text) => vectorsOf[text] ?? at(0, 15)) };
      },
    };
    const stated = async (content: string, scope: string, when: Date) =>
      (await memories.insertMany(accountId, [memoryWrite(content, scope, when)]))[0].id;
    const superseding = async (id: string) => (await memories.getAny(accountId, id))?.supersededById;
    // Written while semantic search was off.
    const alice = await stated("The CEO is Alice Wong.", "ceo", new Date(Date.now() - 120_000));
    const bob = await stated("The CEO is Bob Stone.", "ceo", new Date(Date.now() - 60_000));
    const embedder = createMemoryEmbedder({
      memories,
      provider,
      logger: silentLogger,
      clock: systemClock,
      afterStore: createCorrectionLinker({
        memories,
        writer: test.platform.memoryWriter,
        clock: systemClock,
        fallbackLimit: 1000,
        efSearch: 100,
      }),
    });
    try {
      await embedder.drain();
      expect(await superseding(alice)).toBeNull();
      // A new statement corrects both.
      const carol = await stated("The CEO is Carol Diaz.", "ceo", new Date());
      await embedder.drain();
      expect([await superseding(alice), await superseding(bob)]).toEqual([carol, carol]);

      const tuesday = await stated("Deployments happen every Tuesday.", "deploys", new Date());
      const thursday = await stated("Deployments happen every Thursday.", "deploys", new Date());
      await embedder.drain();
      expect(await superseding(tuesday)).toBeNull();
      // A new model, learned from a query: every row is embedded again, nearer, and corrects nothing.
      model = "cairn/model-two";
      await embedder.embedQuery("When do deployments happen?");
      await embedder.drain();
      expect(embedder.path()?.modelId).toBe("cairn/model-two");
      expect(await superseding(tuesday)).toBeNull();
      // Both rows (current) have their vector on the new path: they were embedded again.
      expect(await memories.embeddedCount(accountId, "deploys", embedder.path()!, new Date())).toBe(2);
      // A statement written after it does.
      const friday = await stated("Deployments happen every Friday.", "deploys", new Date());
      await embedder.drain();
      expect([await superseding(tuesday), await superseding(thursday)]).toEqual([friday, friday]);
    } finally {
      await embedder.close();
    }
  });
});

// With the real model (the "memory (embeddings)" project's shared model server, e5-small-v2):
// defined in that project only, so the lexical project neither runs nor skips them.
if (embeddingsMode)
  describe("corrections caught by meaning with the real model", () => {
    async function similarity(first: string, second: string): Promise<number> {
      const response = await fetch(`${inject("modelServerUrl")}/v1/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: [first, second] }),
      });
      const [left, right] = ((await response.json()) as { data: { embedding: number[] }[] }).data.map(
        (item) => item.embedding,
      );
      const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);
      return dot(left, right) / Math.sqrt(dot(left, left) * dot(right, right));
    }

    it.each([
      ["The CEO is Alice Wong.", "The CEO is Bob Stone.", "updates"],
      ["Deployments happen every Tuesday.", "Deployments happen every Thursday.", "updates"],
      ["Las reuniones son los martes.", "Las reuniones son los jueves.", "updates"],
      ["The CEO is Alice Wong.", "The CFO is Alice Wong.", "not updates"],
      ["The CEO is Alice Wong.", "The CEO lives in Boston.", "not updates"],
      ["The export API supports JSON output.", "The export API now also supports CSV output.", "not updates"],
    ])("%j → %j %s", async (older, newer, expected) => {
      const relation = detectRelationByMeaning(
        { content: newer },
        { content: older },
        await similarity(newer, older),
      );
      if (expected === "updates") {
        expect(detectRelation({ content: newer }, { content: older })?.type).not.toBe("updates");
        expect(relation?.type).toBe("updates");
      } else expect(relation?.type).not.toBe("updates");
    });
  });
