/**
 * The embedder's loop against an in-memory store of the four embedding calls and a scripted
 * provider (the real store and model server are in test/memory/embedder.test.ts): the path it
 * learns, batches, backoff without a hot loop, a model change, dropping old paths only once the
 * new one is complete, close aborting the call in flight, and query warnings.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFakeClock } from "../../test/doubles/fake-clock.ts";
import { EmbeddingFailure, type EmbeddingProvider, type Embeddings } from "../ports/embeddings.ts";
import { silentLogger } from "../ports/logger.ts";
import type { EmbeddingPath, MemoryStore, StoredEmbedding } from "../ports/memory-store.ts";
import {
  contextCharacters,
  createMemoryEmbedder,
  embeddingPathVersion,
  embeddingProbeText,
  type StoredBatch,
} from "./embedder.ts";

const key = (path: EmbeddingPath) => `${path.modelId}/${path.dimensions}/${path.version}`;

/** The embedding part of a store: rows, and per path the content hash each row's vector is for. */
function createEmbeddingStore() {
  const rows = new Map<
    string,
    { content: string; contentHash: string; context: { memoryId: string; content: string } | null }
  >();
  const vectors = new Map<string, Map<string, string>>();
  /** Each work lookup's listed ids (undefined: every row searched). */
  const lookups: Array<readonly string[] | undefined> = [];
  /** Every batch of vectors stored, as stored. */
  const storedBatches: StoredEmbedding[][] = [];
  const store = {
    async embeddingWork(path: EmbeddingPath, limit: number, _now: Date, memoryIds?: readonly string[]) {
      lookups.push(memoryIds);
      const done = vectors.get(key(path));
      return [...rows]
        .filter(([id, row]) => done?.get(id) !== row.contentHash && (memoryIds?.includes(id) ?? true))
        .slice(0, limit)
        .map(([memoryId, row]) => ({ accountId: "account", memoryId, ...row }));
    },
    async putEmbeddings(path: EmbeddingPath, embeddings: StoredEmbedding[]) {
      const onPath = vectors.get(key(path)) ?? new Map<string, string>();
      vectors.set(key(path), onPath);
      storedBatches.push(embeddings);
      for (const embedding of embeddings) {
        expect(embedding.vector).toHaveLength(path.dimensions);
        if (rows.get(embedding.memoryId)?.contentHash === embedding.contentHash)
          onPath.set(embedding.memoryId, embedding.contentHash);
      }
    },
    dropOtherEmbeddingPaths: vi.fn(async (keep: EmbeddingPath, limit: number) => {
      let dropped = 0;
      for (const [path, onPath] of vectors) {
        if (path === key(keep)) continue;
        for (const id of onPath.keys()) {
          if (dropped === limit) return dropped;
          onPath.delete(id);
          dropped++;
        }
      }
      return dropped;
    }),
  };
  return {
    memories: store as unknown as MemoryStore,
    store,
    vectors,
    lookups,
    storedBatches,
    add(id: string, content: string, context: { memoryId: string; content: string } | null = null) {
      rows.set(id, { content, contentHash: `hash:${content}`, context });
    },
  };
}

type Answer = (texts: readonly string[], signal?: AbortSignal) => Promise<Embeddings>;

/** A provider whose answers a test scripts; every call's texts are recorded. */
function createScriptedProvider(settings: { modelId?: string | null; dimensions?: number | null } = {}) {
  const calls: string[][] = [];
  let model = "model-a";
  const answerWith = (texts: readonly string[]): Embeddings => ({
    modelId: model,
    dimensions: 3,
    vectors: texts.map(() => new Float32Array([1, 0, 0])),
  });
  const scripted = { answer: (async (texts) => answerWith(texts)) as Answer };
  const provider: EmbeddingProvider = {
    destination: "model_server",
    modelId: settings.modelId ?? null,
    dimensions: settings.dimensions ?? null,
    maxBatchSize: 2,
    embed(texts, signal) {
      calls.push([...texts]);
      return scripted.answer(texts, signal);
    },
  };
  return {
    provider,
    calls,
    scripted,
    answerWith,
    useModel(name: string) {
      model = name;
    },
  };
}

const unreachable = () =>
  new EmbeddingFailure("unreachable", "connection refused", { destination: "model_server" });
const pathA = { modelId: "model-a", dimensions: 3, version: embeddingPathVersion };

function setUp(
  settings?: Parameters<typeof createScriptedProvider>[0],
  sweepMilliseconds?: number,
  afterStore?: (batch: StoredBatch) => Promise<void>,
) {
  const store = createEmbeddingStore();
  const scripted = createScriptedProvider(settings);
  const embedder = createMemoryEmbedder({
    memories: store.memories,
    provider: scripted.provider,
    logger: silentLogger,
    clock: createFakeClock(),
    random: () => 0,
    sweepMilliseconds,
    afterStore,
  });
  return { ...store, ...scripted, embedder };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createMemoryEmbedder", () => {
  it("learns the path with a probe, then embeds every row in batches and stores them on it", async () => {
    const { embedder, add, calls, vectors, store } = setUp();
    for (const id of ["m1", "m2", "m3"]) add(id, `content of ${id}`);
    expect(embedder.path()).toBeNull();
    await embedder.drain();
    expect(embedder.path()).toEqual(pathA);
    expect(calls).toEqual([[embeddingProbeText], ["content of m1", "content of m2"], ["content of m3"]]);
    expect([...(vectors.get(key(pathA))?.keys() ?? [])]).toEqual(["m1", "m2", "m3"]);
    await embedder.drain();
    expect(calls).toHaveLength(3);
    // Older paths are cleaned once per path, not on every idle pass.
    expect(store.dropOtherEmbeddingPaths).toHaveBeenCalledTimes(1);
    await embedder.close();
  });

  it("embeds a memory with context alone and after it, stores the unit sum, and hands on its own vector", async () => {
    const batches: StoredBatch[] = [];
    const { embedder, add, calls, scripted, storedBatches } = setUp(
      { modelId: "model-a", dimensions: 3 },
      undefined,
      async (batch) => {
        batches.push(batch);
      },
    );
    // Each text's vector says which text it is: alone [1, 0, 0], with context along y (made unit).
    scripted.answer = async (texts) => ({
      modelId: "model-a",
      dimensions: 3,
      vectors: texts.map((text) => new Float32Array(text.includes("\n") ? [0, 3, 0] : [1, 0, 0])),
    });
    const long = `${"x".repeat(contextCharacters)}END`;
    add("m1", "first turn");
    add("m2", "second turn", { memoryId: "m1", content: long });
    add("m3", "third turn");
    await embedder.drain();
    // Two texts for m2: the first batch of two texts holds m1 and m3, the next m2.
    expect(calls).toEqual([
      ["first turn", "third turn"],
      ["second turn", `${long.slice(-contextCharacters)}\nsecond turn`],
    ]);
    const second = storedBatches[1][0];
    expect(second).toMatchObject({ memoryId: "m2", contextId: "m1" });
    expect([...second.vector].map((value) => Number(value.toFixed(6)))).toEqual([
      Number(Math.SQRT1_2.toFixed(6)),
      Number(Math.SQRT1_2.toFixed(6)),
      0,
    ]);
    expect(storedBatches[0][0]).toMatchObject({ memoryId: "m1", contextId: null });
    expect([...storedBatches[0][0].vector]).toEqual([1, 0, 0]);
    // Relation detection gets what the statement says, without its context.
    expect(batches[1].embeddings).toHaveLength(1);
    expect([...batches[1].embeddings[0].vector]).toEqual([1, 0, 0]);
    await embedder.close();
  });

  it("needs no probe when the settings name the model and the width", async () => {
    const { embedder, add, calls } = setUp({ modelId: "model-a", dimensions: 3 });
    add("m1", "one");
    await embedder.drain();
    expect(calls).toEqual([["one"]]);
    await embedder.close();
  });

  it("backs off 1 s doubling on failures, ignores wakes meanwhile, and resumes when the provider answers", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { embedder, add, calls, scripted, answerWith, vectors } = setUp({
      modelId: "model-a",
      dimensions: 3,
    });
    add("m1", "one");
    scripted.answer = async () => {
      throw unreachable();
    };
    await expect(embedder.drain()).rejects.toMatchObject({ kind: "unreachable" });
    expect(calls).toHaveLength(1);
    embedder.wake();
    // Jitter at its least (random 0) halves the delays: 0.5 s, then 1 s, then 2 s.
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    scripted.answer = async (texts) => answerWith(texts);
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toHaveLength(4);
    expect(vectors.get(key(pathA))?.has("m1")).toBe(true);
    await embedder.close();
  });

  it("backs off on a refusal too, never looping hot, and caps the delay at a minute", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { embedder, add, calls, scripted } = setUp({ modelId: "model-a", dimensions: 3 });
    add("m1", "one");
    scripted.answer = async () => {
      throw new EmbeddingFailure("rejected", "401", { destination: "model_server", status: 401 });
    };
    embedder.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    // Delays of 0.5, 1, 2, 4, 8, 16, then 30 s each (jitter at its least halves the 60 s cap):
    // 7 retries in the first 61.5 s and 17 more by ten minutes, not a hot loop's thousands.
    await vi.advanceTimersByTimeAsync(600_000);
    expect(calls).toHaveLength(25);
    await embedder.close();
  });

  it("sets aside a text the provider refuses, embeds the rest, and keeps the old paths", async () => {
    const { embedder, add, scripted, answerWith, vectors, store, calls } = setUp();
    for (const id of ["m1", "m2", "m3", "m4"])
      add(id, id === "m2" ? "too long for the model" : `content of ${id}`);
    scripted.answer = async (texts) => {
      if (texts.includes("too long for the model"))
        throw new EmbeddingFailure("rejected", "400", { destination: "model_server", status: 400 });
      return answerWith(texts);
    };
    await embedder.drain();
    expect([...(vectors.get(key(pathA))?.keys() ?? [])].sort()).toEqual(["m1", "m3", "m4"]);
    // The probe, the refused pair, each of the pair alone, then the last pair; m2 is not tried again.
    expect(calls).toHaveLength(5);
    await embedder.drain();
    expect(calls).toHaveLength(5);
    // m2 has no vector on the path, so the path does not cover every row: older paths stay.
    expect(store.dropOtherEmbeddingPaths).not.toHaveBeenCalled();
    // A new content is new work.
    add("m2", "shorter");
    await embedder.drain();
    expect(vectors.get(key(pathA))?.has("m2")).toBe(true);
    expect(store.dropOtherEmbeddingPaths).toHaveBeenCalledTimes(1);
    await embedder.close();
  });

  it("takes a refusal of every text for a setting: backs off and sets nothing aside", async () => {
    const { embedder, add, scripted, answerWith, vectors } = setUp({ modelId: "model-a", dimensions: 3 });
    for (const id of ["m1", "m2", "m3"]) add(id, `content of ${id}`);
    const refusal = () =>
      new EmbeddingFailure("rejected", "400", { destination: "model_server", status: 400 });
    scripted.answer = async () => {
      throw refusal();
    };
    await expect(embedder.drain()).rejects.toMatchObject({ kind: "rejected", status: 400 });
    scripted.answer = async (texts) => answerWith(texts);
    await embedder.drain();
    expect(vectors.get(key(pathA))?.size).toBe(3);
    await embedder.close();
  });

  it("moves to a new model's path, re-embeds every row, and drops the old path only once complete", async () => {
    const { embedder, add, useModel, vectors, store } = setUp();
    for (const id of ["m1", "m2", "m3"]) add(id, `content of ${id}`);
    await embedder.drain();
    expect(store.dropOtherEmbeddingPaths).toHaveBeenCalledTimes(1);
    useModel("model-b");
    const query = await embedder.embedQuery("a question");
    const pathB = { ...pathA, modelId: "model-b" };
    expect(query).toMatchObject({ path: pathB });
    expect(embedder.path()).toEqual(pathB);
    await embedder.drain();
    expect([...(vectors.get(key(pathB))?.keys() ?? [])]).toEqual(["m1", "m2", "m3"]);
    expect(store.dropOtherEmbeddingPaths).toHaveBeenLastCalledWith(pathB, 500);
    expect(vectors.get(key(pathA))?.size).toBe(0);
    await embedder.close();
  });

  it("embeds an account's repeated query once, for that account alone and on the current path only", async () => {
    const { embedder, calls, scripted, answerWith, useModel } = setUp();
    let answers = 0;
    scripted.answer = async (texts) => {
      answers++;
      if (answers === 1) throw unreachable();
      const answer = answerWith(texts);
      return { ...answer, vectors: texts.map(() => new Float32Array([answers, 0, 0])) };
    };
    // A failure is not kept: the next search embeds again.
    expect(await embedder.embedQuery("where is the key", undefined, "account-1")).toHaveProperty("warning");
    const first = await embedder.embedQuery("where is the key", undefined, "account-1");
    expect(first).toMatchObject({ path: pathA, vector: new Float32Array([2, 0, 0]) });
    expect(await embedder.embedQuery("where is the key", undefined, "account-1")).toEqual(first);
    expect(calls).toHaveLength(2);
    // Another account, another text, or no account: embedded afresh.
    expect(await embedder.embedQuery("where is the key", undefined, "account-2")).toMatchObject({
      vector: new Float32Array([3, 0, 0]),
    });
    expect(await embedder.embedQuery("where is the lock", undefined, "account-1")).toMatchObject({
      vector: new Float32Array([4, 0, 0]),
    });
    expect(await embedder.embedQuery("where is the key")).toMatchObject({
      vector: new Float32Array([5, 0, 0]),
    });
    expect(calls).toHaveLength(5);
    // A new model: the kept vector is on the old path, so the query is embedded on the new one.
    useModel("model-b");
    await embedder.embedQuery("anything else");
    expect(await embedder.embedQuery("where is the key", undefined, "account-1")).toMatchObject({
      path: { ...pathA, modelId: "model-b" },
      vector: new Float32Array([7, 0, 0]),
    });
    expect(calls).toHaveLength(7);
    await embedder.close();
  });

  it("keeps the old path while the new one is incomplete", async () => {
    const { embedder, add, useModel, scripted, answerWith, vectors, store } = setUp();
    for (const id of ["m1", "m2", "m3"]) add(id, `content of ${id}`);
    await embedder.drain();
    useModel("model-b");
    let answers = 0;
    // The query answers, and so does the first batch on the new path; the next one fails.
    scripted.answer = async (texts) => {
      if (++answers > 2) throw unreachable();
      return answerWith(texts);
    };
    expect(await embedder.embedQuery("a question")).toHaveProperty("vector");
    await expect(embedder.drain()).rejects.toMatchObject({ kind: "unreachable" });
    expect(vectors.get(key({ ...pathA, modelId: "model-b" }))?.size).toBe(2);
    expect(vectors.get(key(pathA))?.size).toBe(3);
    expect(store.dropOtherEmbeddingPaths).toHaveBeenCalledTimes(1);
    await embedder.close();
  });

  it("embeds rows written while a batch is in flight without another wake", async () => {
    const { embedder, add, scripted, answerWith, vectors, calls } = setUp({
      modelId: "model-a",
      dimensions: 3,
    });
    add("m1", "one");
    let release = () => {};
    scripted.answer = (texts) =>
      new Promise((resolve) => {
        release = () => resolve(answerWith(texts));
      });
    embedder.wake();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    add("m2", "two");
    embedder.wake();
    scripted.answer = async (texts) => answerWith(texts);
    release();
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.size).toBe(2));
    await embedder.close();
  });

  it("looks up the rows a write names by id, and searches every row only when that may find more", async () => {
    const { embedder, add, vectors, lookups } = setUp({ modelId: "model-a", dimensions: 3 });
    for (const id of ["m1", "m2", "m3"]) add(id, id);
    // The first wake looks up the row it names, then searches every row (a batch's worth found,
    // past it looked up by id) until a search finds nothing left.
    embedder.wake(["m3"]);
    await vi.waitFor(() => expect(lookups).toEqual([["m3"], undefined, undefined]));
    expect(vectors.get(key(pathA))?.size).toBe(3);
    // Then a write's rows only: one lookup by id finds and embeds them; none is searched for after.
    lookups.length = 0;
    add("m4", "four");
    add("m5", "five");
    embedder.wake(["m4", "m5"]);
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.size).toBe(5));
    expect(lookups).toEqual([["m4", "m5"]]);
    // A row written but not named (another replica's) waits for a wake without ids.
    add("m6", "six");
    embedder.wake(["m5"]);
    await vi.waitFor(() => expect(lookups).toHaveLength(2));
    expect(vectors.get(key(pathA))?.has("m6")).toBe(false);
    embedder.wake();
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.has("m6")).toBe(true));
    expect(lookups.slice(2).every((ids) => ids === undefined)).toBe(true);
    // More written rows than are kept: every row is searched instead.
    lookups.length = 0;
    add("m7", "seven");
    embedder.wake([...Array.from({ length: 10_001 }, (_, index) => `gone-${index}`), "m7"]);
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.has("m7")).toBe(true));
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups.every((ids) => ids === undefined)).toBe(true);
    await embedder.close();
  });

  it("lists what a search finds past its batch and looks those rows up by id", async () => {
    const { embedder, add, vectors, lookups } = setUp({ modelId: "model-a", dimensions: 3 });
    for (const id of ["m1", "m2", "m3", "m4", "m5"]) add(id, id);
    embedder.wake();
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.size).toBe(5));
    await vi.waitFor(() => expect(lookups).toEqual([undefined, ["m3", "m4"], ["m5"], undefined]));
    await embedder.close();
  });

  it("searches every row on its own now and then, so a row no write named is embedded all the same", async () => {
    const { embedder, add, vectors, lookups } = setUp({ modelId: "model-a", dimensions: 3 }, 50);
    await embedder.drain();
    lookups.length = 0;
    // Written by another replica that stopped before embedding it: no wake names it.
    add("m1", "one");
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.has("m1")).toBe(true));
    expect(lookups[0]).toBeUndefined();
    await embedder.close();
  });

  it("searches every row after a failed lookup of written rows: their ids went with the failed batch", async () => {
    vi.useFakeTimers();
    const { embedder, add, vectors, lookups, scripted, answerWith } = setUp({
      modelId: "model-a",
      dimensions: 3,
    });
    await embedder.drain();
    add("m1", "one");
    scripted.answer = async () => {
      throw unreachable();
    };
    lookups.length = 0;
    embedder.wake(["m1"]);
    await vi.waitFor(() => expect(lookups).toEqual([["m1"]]));
    scripted.answer = async (texts) => answerWith(texts);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(vectors.get(key(pathA))?.has("m1")).toBe(true));
    expect(lookups.slice(1)[0]).toBeUndefined();
    await embedder.close();
  });

  it("close aborts the call in flight and stores nothing after it", async () => {
    const { embedder, add, scripted, calls, vectors } = setUp({ modelId: "model-a", dimensions: 3 });
    add("m1", "one");
    let seen: AbortSignal | undefined;
    scripted.answer = (_texts, signal) =>
      new Promise((_resolve, reject) => {
        seen = signal;
        signal?.addEventListener("abort", () =>
          reject(new EmbeddingFailure("aborted", "cancelled", { destination: "model_server" })),
        );
      });
    embedder.wake();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    await embedder.close();
    expect(seen?.aborted).toBe(true);
    expect(vectors.size).toBe(0);
    embedder.wake();
    await embedder.drain();
    expect(calls).toHaveLength(1);
  });

  it("turns every query failure into words for clients, never the text", async () => {
    const { embedder, scripted } = setUp();
    const secret = "my bank PIN is 4821";
    scripted.answer = async () => {
      throw new EmbeddingFailure("rejected", `refused ${secret}`, {
        destination: "model_server",
        status: 503,
      });
    };
    expect(await embedder.embedQuery(secret)).toEqual({
      warning: "semantic search unavailable: rejected (HTTP 503); results are lexical only",
    });
    scripted.answer = async () => {
      throw new TypeError(secret);
    };
    const unexpected = await embedder.embedQuery(secret);
    expect(unexpected).toEqual({
      warning: "semantic search unavailable: internal error; results are lexical only",
    });
    await embedder.close();
  });
});
