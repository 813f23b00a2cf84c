/**
 * The background embedder on a real store and Cairn's real model server process: every live
 * memory gets a vector on the learned path, a paraphrase with no shared word is the nearest row
 * (and tops the hybrid ranking), a forget during an embed leaves no vector behind, and with the
 * model server down the work stays queued and completes by itself once it is back. On both
 * databases.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  combinedVector,
  createMemoryEmbedder,
  embeddingPathVersion,
  type MemoryEmbedder,
} from "../../core/memory/embedder.ts";
import { fuseRankings } from "../../core/memory/hybrid.ts";
import { systemClock } from "../../core/ports/clock.ts";
import type { EmbeddingProvider } from "../../core/ports/embeddings.ts";
import { silentLogger } from "../../core/ports/logger.ts";
import type { EmbeddingPath, MemoryStore } from "../../core/ports/memory-store.ts";
import { createOpenAiCompatibleEmbeddings } from "../../plugins/embeddings/index.ts";
import { sql } from "../../plugins/storage/sql-statement.ts";
import {
  ensureModelServerEnvironment,
  type RunningModelServer,
  setupTimeout,
  startModelServer,
} from "../model-server/model-server-process.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, newAccount } from "./memory-client.ts";

/**
 * The model server's client behind a switch: a restarted model server listens on a new port,
 * and `beforeEmbed` lets a test act while a batch is on its way.
 */
function createSwitchableProvider(url: string) {
  const connect = (base: string) =>
    createOpenAiCompatibleEmbeddings({
      destination: "model_server",
      baseUrl: `${base}/v1`,
      apiKey: null,
      model: null,
      dimensions: null,
      timeoutSeconds: 30,
      maxBatchSize: 4,
    });
  const state = { inner: connect(url), beforeEmbed: async (_texts: readonly string[]) => {} };
  const provider: EmbeddingProvider = {
    destination: "model_server",
    modelId: null,
    dimensions: null,
    maxBatchSize: 4,
    async embed(texts, signal, inputType) {
      await state.beforeEmbed(texts);
      return state.inner.embed(texts, signal, inputType);
    },
  };
  return {
    provider,
    state,
    pointAt(base: string) {
      state.inner = connect(base);
    },
  };
}

beforeAll(() => ensureModelServerEnvironment(), setupTimeout);

describe.each(storageTargets)("the memory embedder on %s", (target) => {
  let modelServer: RunningModelServer;
  let test: TestPlatform;
  let memories: MemoryStore;
  let switchable: ReturnType<typeof createSwitchableProvider>;
  let embedder: MemoryEmbedder;

  beforeAll(async () => {
    modelServer = await startModelServer();
    test = await createMemoryPlatform(target);
    memories = test.platform.storage.memories;
    switchable = createSwitchableProvider(modelServer.url);
    embedder = createMemoryEmbedder({
      memories,
      provider: switchable.provider,
      logger: silentLogger,
      clock: systemClock,
      // The shortest backoff (0.5 s doubling), so the retry test waits seconds, not minutes.
      random: () => 0,
    });
  }, setupTimeout);

  afterAll(async () => {
    await embedder?.close();
    await test?.close();
    await modelServer?.stop();
  });

  const vectorsOf = async (memoryId: string) =>
    (
      await test.platform.storage.execute<{ total: number | string }>(
        sql`select count(*) as total from memory_embeddings where memory_id = ${memoryId}`,
      )
    ).map((row) => Number(row.total))[0];

  it("gives every live memory a vector on the model server's path", async () => {
    const { accountId, memory } = await newAccount(test);
    const contents = [
      "The boiler service is booked for the first Monday of March.",
      "Nadia prefers tea without sugar.",
      "The staging database runs PostgreSQL 15.",
      "Our office plants need water every Thursday.",
      "The quarterly report is due next Tuesday.",
      "Kofi is learning to play the cello.",
    ];
    for (const content of contents) await memory.remember({ content });
    await embedder.drain();
    const path = embedder.path() as EmbeddingPath;
    expect(path).toEqual({ modelId: "e5-small-v2", dimensions: 384, version: embeddingPathVersion });
    expect(await memories.embeddedCount(accountId, undefined, path, new Date())).toBe(contents.length);
    expect(await memories.embeddingWork(path, 100, new Date())).toEqual([]);
  });

  it("finds a paraphrase with no shared word as the nearest row, and the hybrid ranking puts it first", async () => {
    const { accountId, memory } = await newAccount(test);
    const allergy = await memory.remember({ content: "I am allergic to peanuts." });
    for (const content of [
      "The central bank raised interest rates again.",
      "My flight to Lisbon leaves on Friday morning.",
      "We painted the kitchen walls pale blue.",
      "The quarterly report is due next Tuesday.",
    ]) {
      await memory.remember({ content });
    }
    await embedder.drain();
    const question = "Which nuts make me ill?";
    expect((await memory.search(question)).memories).toEqual([]);
    const query = await embedder.embedQuery(question);
    if (!("vector" in query)) throw new Error(query.warning);
    const nearest = await memories.nearest(
      accountId,
      { ...query, limit: 5, includeSuperseded: false, fallbackLimit: 2000, efSearch: 200 },
      new Date(),
    );
    expect(nearest[0]?.id).toBe(allergy.id);
    expect(nearest[0]?.similarity).toBeGreaterThan((nearest[1]?.similarity ?? 1) + 0.1);
    expect(fuseRankings([], nearest)[0]?.id).toBe(allergy.id);
  });

  it("leaves no vector for a memory forgotten while its batch is being embedded", async () => {
    const { memory } = await newAccount(test);
    const kept = await memory.remember({ content: "The spare key hangs behind the garage door." });
    const forgotten = await memory.remember({ content: "My locker code is 4417." });
    let forgottenInFlight = false;
    switchable.state.beforeEmbed = async (texts) => {
      if (!texts.includes(forgotten.content)) return;
      await memory.forget(forgotten.id);
      forgottenInFlight = true;
    };
    try {
      await embedder.drain();
    } finally {
      switchable.state.beforeEmbed = async () => {};
    }
    expect(forgottenInFlight).toBe(true);
    expect(await vectorsOf(kept.id)).toBe(1);
    expect(await vectorsOf(forgotten.id)).toBe(0);
    expect(await memories.embeddingWork(embedder.path() as EmbeddingPath, 100, new Date())).toEqual([]);
  });

  it("embeds a turn after the one before it in its session, and again without it once that one is forgotten", async () => {
    const { memory } = await newAccount(test);
    const session = crypto.randomUUID();
    const { memories: turns } = await memory.import({
      memories: [
        {
          content: "Caroline: I went to an adoption agency meeting last Friday.",
          source_session_id: session,
        },
        { content: "Melanie: How did it go? Are you thinking of applying?", source_session_id: session },
      ],
    });
    const [question, answer] = turns;
    await embedder.drain();
    const stored = async (memoryId: string) => {
      const [row] = await test.platform.storage.execute<{ context_id: string | null; embedding: unknown }>(
        sql`select context_id, embedding from memory_embeddings where memory_id = ${memoryId}`,
      );
      const value = row.embedding;
      const vector =
        value instanceof Uint8Array
          ? new Float32Array(new Uint8Array(value).buffer)
          : Float32Array.from(JSON.parse(String(value)) as number[]);
      return { contextId: row.context_id, vector };
    };
    const embedded = async (text: string) =>
      (await switchable.provider.embed([text])).vectors[0] as Float32Array;
    const close = (left: Float32Array, right: Float32Array) =>
      left.reduce((sum, value, index) => sum + value * right[index], 0);
    // The answer's vector is its own and the pair's, combined; the question's is its own.
    const withContext = await stored(answer.id);
    expect(withContext.contextId).toBe(question.id);
    const expected = combinedVector(
      await embedded(answer.content),
      await embedded(`${question.content}\n${answer.content}`),
    );
    expect(close(withContext.vector, expected)).toBeGreaterThan(0.9999);
    expect(close(withContext.vector, await embedded(answer.content))).toBeLessThan(0.99);
    expect((await stored(question.id)).contextId).toBeNull();

    await memory.forget(question.id);
    expect(await vectorsOf(answer.id)).toBe(0);
    await embedder.drain();
    const alone = await stored(answer.id);
    expect(alone.contextId).toBeNull();
    expect(close(alone.vector, await embedded(answer.content))).toBeGreaterThan(0.9999);
  });

  it("embeds a turn again without its context when that is forgotten while the turn is being embedded", async () => {
    const { memory } = await newAccount(test);
    await embedder.drain();
    const session = crypto.randomUUID();
    const { memories: turns } = await memory.import({
      memories: [
        { content: "Jon: I lost my job at the bank last month.", source_session_id: session },
        { content: "Gina: Sorry to hear it. What will you do next?", source_session_id: session },
      ],
    });
    const [context, turn] = turns;
    let forgottenInFlight = false;
    switchable.state.beforeEmbed = async (texts) => {
      if (!texts.some((text) => text.startsWith(`${context.content}\n`))) return;
      await memory.forget(context.id);
      forgottenInFlight = true;
    };
    try {
      // Looked up by id only (no search of every row is due after the drain), as after a write.
      embedder.wake([turn.id, context.id]);
      await vi.waitFor(async () => expect(await vectorsOf(turn.id)).toBe(1), {
        timeout: 60_000,
        interval: 250,
      });
    } finally {
      switchable.state.beforeEmbed = async () => {};
    }
    expect(forgottenInFlight).toBe(true);
    const [row] = await test.platform.storage.execute<{ context_id: string | null }>(
      sql`select context_id from memory_embeddings where memory_id = ${turn.id}`,
    );
    expect(row.context_id).toBeNull();
  }, 120_000);

  it("keeps the work queued while the model server is down and completes it by itself when it is back", async () => {
    const { accountId, memory } = await newAccount(test);
    const path = embedder.path() as EmbeddingPath;
    await modelServer.stop();
    for (const content of ["The gate code changed to 2291.", "Ama's birthday is on the ninth of June."]) {
      await memory.remember({ content });
    }
    await expect(embedder.drain()).rejects.toMatchObject({ kind: "unreachable", retryable: true });
    expect(await memories.embeddedCount(accountId, undefined, path, new Date())).toBe(0);
    expect(await memories.embeddingWork(path, 100, new Date())).toHaveLength(2);

    modelServer = await startModelServer();
    switchable.pointAt(modelServer.url);
    // No drain and no wake: the backoff's own retry finishes the work.
    await vi.waitFor(
      async () => expect(await memories.embeddedCount(accountId, undefined, path, new Date())).toBe(2),
      { timeout: 60_000, interval: 250 },
    );
  }, 120_000);
});
