/**
 * The background embedder of semantic memory search: gives every live memory a vector on the
 * current embedding path, and embeds search queries on that same path.
 *
 * The queue is derived, hence durable: the work is whatever `embeddingWork` finds (live rows
 * without a vector on the path for their current content), so a restart, a crash, an edit or a
 * new model resumes by itself with no queue table. One loop runs at a time; `wake(ids)` (called
 * after each write with the rows it wrote) starts it and never waits for it, so a write never
 * blocks on embeddings. The written rows are looked up by id: a search of every row reads the
 * whole table (612 ms of PostgreSQL's time at 105,000 memories, twice per write: once to find
 * the row, once to find nothing left), so it runs only when its answer may differ: at the first
 * wake, after a failure, on a new model, for more written rows than are kept, on `wake()`, and
 * every `sweepMilliseconds` (10 minutes), which bounds how long a row waits that this process
 * was never told of (another replica wrote it and stopped before embedding it).
 *
 * The path is the model id and width the provider answers with (learned from its first answer,
 * a fixed probe text when the settings do not name both) plus `embeddingPathVersion`. Every
 * answer, query or batch, says its model again, so a model change is noticed on the next call.
 *
 * The rule for a model change ("queries never mix spaces"): a query is embedded by the current
 * model, so it is compared only with vectors on the current path, never with the old path's.
 * Rows not yet embedded on the new path are found lexically until the background catches up;
 * the old path's vectors stay untouched until the new path covers every live row, then
 * `dropOtherEmbeddingPaths` deletes them.
 *
 * Failures never escape: a retryable EmbeddingFailure (or a store error) backs off 1 s doubling
 * to 60 s, jittered, and retries; a non-retryable one is logged and backs off the same way, so a
 * misconfiguration never turns into a hot loop. A text the provider refuses on its own (a 400
 * for that row while the others embed) is set aside, logged by id, so one row cannot hold up the
 * queue; it is found lexically. `close()` aborts the call in flight.
 *
 * A memory of a source session (a turn of a conversation) is embedded twice: alone, and after
 * the session's memory before it (`EmbeddingWork.context`); its vector is the two unit vectors'
 * sum made unit again, one vector per memory as before. A turn alone often leaves out what it
 * is about ("Yes, twice last year"): on LoCoMo the vectors alone found 0.683 of the evidence
 * against 0.643, and the fused search at least 0.742 against 0.707 (test/bench/RESULTS.md).
 *
 * After each batch is stored, `afterStore` (corrections by meaning: link-corrections.ts) gets the
 * statements' own vectors (without context: a correction is about what the statement says) with
 * `writtenSince`: a row written since then that lacked a vector on the path is a new
 * statement. It is when this embedder started, or when it learned a new model: rows it embeds
 * that were written earlier are a backfill (written while embeddings were off, or before a
 * restart) or a re-embed for the new model, never new statements, so they correct nothing.
 *
 * A query asked again by the same account is not embedded again: its vector is kept (bounded by
 * bytes, the least recently used leaving first) and served only while its path is the current
 * one. Kept per account, so how fast a search answers never tells one account what another asked.
 */

import { LRUCache } from "lru-cache";
import type { Clock } from "../ports/clock.ts";
import type { EmbeddingFailure, EmbeddingProvider, Embeddings } from "../ports/embeddings.ts";
import type { Logger } from "../ports/logger.ts";
import type { EmbeddingPath, EmbeddingWork, MemoryStore, StoredEmbedding } from "../ports/memory-store.ts";

/**
 * Bumped when how texts are prepared for the model changes: every row is then embedded again.
 * 2: a memory of a source session is embedded with the one before it (`embeddedTexts`); the
 * others' version-1 vectors are carried over by migration 0027.
 */
export const embeddingPathVersion = 2;
/** Characters of the previous memory of a session embedded as context: its end, next to the memory. */
export const contextCharacters = 1_000;
/** The text embedded to learn the model and width when the settings do not name both; no memory content. */
export const embeddingProbeText = "Cairn embedding probe";
const firstDelayMilliseconds = 1_000;
const longestDelayMilliseconds = 60_000;
/** Old-path vectors deleted per statement once the current path covers every live row. */
const dropChunk = 500;
/** Bytes of query vectors kept (with their texts): some 5,000 queries at 384 dimensions. */
const queryVectorBytes = 8 * 1024 * 1024;

/** Written rows kept to be looked up by id; past it, every row is searched instead. */
const maxWrittenRows = 10_000;
/** Written rows looked up per statement (the stores' IN lists take 500). */
const writtenPerLookup = 500;

/** How often every row is searched though no write asked for it (another replica's rows). */
const sweepMillisecondsDefault = 10 * 60_000;

/** Most rows set aside as refused; past it the refusals are taken for a setting and backed off. */
const maxSetAside = 1000;

export interface MemoryEmbedderOptions {
  memories: MemoryStore;
  provider: EmbeddingProvider;
  logger: Logger;
  clock: Clock;
  /** Default `embeddingPathVersion`. */
  pathVersion?: number;
  /** 0–1, for the backoff's jitter (default Math.random). */
  random?: () => number;
  /** Called (and awaited) after each batch's vectors are stored; a failure is logged, not retried. */
  afterStore?: (batch: StoredBatch) => Promise<void>;
  /** Every row searched this often regardless of writes (default 10 minutes). */
  sweepMilliseconds?: number;
}

/** A batch of vectors just stored on `path`. */
export interface StoredBatch {
  path: EmbeddingPath;
  embeddings: readonly StoredEmbedding[];
  /** Rows written (`updatedAt`) at or after this are new statements; earlier ones a backfill or re-embed. */
  writtenSince: Date;
}

export type QueryEmbedding = { path: EmbeddingPath; vector: Float32Array } | { warning: string };

export interface MemoryEmbedder {
  /**
   * Starts the background loop if it is not running (or runs it once more after its current
   * pass), for the rows of `memoryIds` (just written), or without them for every row.
   */
  wake(memoryIds?: readonly string[]): void;
  /** The current path, or null before the provider has answered once. */
  path(): EmbeddingPath | null;
  /** Embeds until no row of any account is left without a vector; rejects with the failure that stopped it (the loop still retries later). */
  drain(): Promise<void>;
  /**
   * The query's vector on the current path, or a warning for clients; never throws. With
   * `accountId`, the vector is kept for that account's next search of the same text.
   */
  embedQuery(text: string, signal?: AbortSignal, accountId?: string): Promise<QueryEmbedding>;
  /** Stops the loop and aborts the call in flight; later wakes do nothing. */
  close(): Promise<void>;
}

export function samePath(first: EmbeddingPath, second: EmbeddingPath): boolean {
  return (
    first.modelId === second.modelId &&
    first.dimensions === second.dimensions &&
    first.version === second.version
  );
}

/** Core may import the port's types only, so an EmbeddingFailure is recognised by its shape. */
export function asEmbeddingFailure(error: unknown): EmbeddingFailure | null {
  if (!(error instanceof Error) || error.name !== "EmbeddingFailure") return null;
  const failure = error as Partial<EmbeddingFailure>;
  return typeof failure.kind === "string" && typeof failure.retryable === "boolean"
    ? (error as EmbeddingFailure)
    : null;
}

/** The failure's kind and HTTP status, never its message (which may quote the provider). */
function describeFailure(failure: EmbeddingFailure): string {
  return failure.status === null ? failure.kind : `${failure.kind} (HTTP ${failure.status})`;
}

/** Words for clients: the failure's kind (and HTTP status), never the texts or the message. */
export function semanticWarning(error: unknown): string {
  const failure = asEmbeddingFailure(error);
  const reason = failure === null ? "internal error" : describeFailure(failure);
  return `semantic search unavailable: ${reason}; results are lexical only`;
}

/** A refusal of the texts themselves (too long, malformed for the model), not of the call. */
function refusesText(error: unknown): boolean {
  const failure = asEmbeddingFailure(error);
  if (failure === null) return false;
  if (failure.kind === "invalid_input" || failure.kind === "bad_answer") return true;
  return (
    failure.kind === "rejected" &&
    (failure.status === 400 || failure.status === 413 || failure.status === 422)
  );
}

export function createMemoryEmbedder(options: MemoryEmbedderOptions): MemoryEmbedder {
  const { memories, provider, clock } = options;
  const logger = options.logger.child({ component: "memory-embedder" });
  const version = options.pathVersion ?? embeddingPathVersion;
  const random = options.random ?? Math.random;
  const stopping = new AbortController();
  let current: EmbeddingPath | null = null;
  /** The path whose older siblings were last dropped: dropping runs once per path, not every idle pass. */
  let cleanedFor: EmbeddingPath | null = null;
  let running: Promise<unknown> | null = null;
  let wokenWhileRunning = false;
  /** Rows written since they were last looked up: looked up by id. */
  const writtenRows = new Set<string>();
  /** Searches of every row asked for, and how many of those asks a completed search answered. */
  let scansAsked = 1;
  let scansDone = 0;
  let failures = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let answeredOnce = false;
  /** Whether the provider has answered on `current` (not only the settings naming it). */
  let answeredOnPath = false;
  /** From when rows without a vector on the current path are new statements (`StoredBatch`). */
  let writtenSince = clock.now();
  /** Rows the provider refused as input: memory id → the content hash refused. */
  const setAsideRows = new Map<string, string>();
  /** Recent queries' vectors, under account and text. */
  const queryVectors = new LRUCache<string, { path: EmbeddingPath; vector: Float32Array }>({
    maxSize: queryVectorBytes,
    sizeCalculation: ({ vector }, key) => 2 * key.length + vector.byteLength + 64,
  });

  /** Takes the path an answer belongs to as the current one; true when it is new. */
  function learn(answer: Embeddings): boolean {
    const answered = { modelId: answer.modelId, dimensions: answer.dimensions, version };
    const changed = current === null || !samePath(current, answered);
    if (current !== null && changed)
      logger.info({ from: current, to: answered }, "embedding model changed; re-embedding");
    // Every row is embedded again on a new model: none written before now is a new statement.
    // Not when the old path was only what the settings named and never answered on.
    if (current !== null && changed && answeredOnPath) writtenSince = clock.now();
    if (current !== null && changed) scansAsked++;
    current = answered;
    answeredOnPath = true;
    return changed;
  }

  function pathOf(answer: Embeddings): EmbeddingPath {
    return { modelId: answer.modelId, dimensions: answer.dimensions, version };
  }

  async function knownPath(): Promise<EmbeddingPath> {
    if (current !== null) return current;
    if (provider.modelId !== null && provider.dimensions !== null) {
      current = { modelId: provider.modelId, dimensions: provider.dimensions, version };
      return current;
    }
    const answer = await provider.embed([embeddingProbeText], stopping.signal);
    answeredOnce = true;
    learn(answer);
    return pathOf(answer);
  }

  async function dropOlderPaths(path: EmbeddingPath): Promise<void> {
    let dropped = 0;
    for (;;) {
      const count = await memories.dropOtherEmbeddingPaths(path, dropChunk);
      dropped += count;
      if (count < dropChunk || stopping.signal.aborted) break;
    }
    if (dropped > 0) logger.info({ path, dropped }, "dropped vectors of older embedding paths");
    cleanedFor = path;
  }

  /** Embeds and stores one batch, then hands it to `afterStore`. */
  async function embedAndStore(work: readonly EmbeddingWork[]): Promise<void> {
    // Taken before the answer: a batch that reveals a new model was found on the old path, so its
    // rows written since had no vector there either (no correction check yet).
    const since = writtenSince;
    const answer = await provider.embed(work.flatMap(embeddedTexts), stopping.signal);
    answeredOnce = true;
    learn(answer);
    const path = pathOf(answer);
    const { embeddings, own } = stored(work, answer.vectors);
    await memories.putEmbeddings(path, embeddings);
    // A vector whose context was forgotten during the call is not stored, and that forget found
    // no vector to drop: looked up again, such a row is embedded without it.
    for (const item of work) if (item.context !== null) writtenRows.add(item.memoryId);
    if (options.afterStore === undefined || stopping.signal.aborted) return;
    try {
      await options.afterStore({ path, embeddings: own, writtenSince: since });
    } catch (error) {
      // The vectors are stored, so the rows are no longer work: a retry would not find them.
      logger.error({ err: error }, "checking new memories for corrections failed");
    }
  }

  function setAside(item: EmbeddingWork, reason: string): void {
    setAsideRows.set(item.memoryId, item.contentHash);
    logger.warn(
      { accountId: item.accountId, memoryId: item.memoryId, reason },
      "a memory cannot be embedded; it is found by lexical search only",
    );
  }

  /**
   * A batch the provider refused as input: each row alone, so one text it cannot take does not
   * hold up the others. Refused rows are set aside (until their content changes or the process
   * restarts) only when the provider embeds other texts: a refusal of every row, or before the
   * provider has embedded anything, is taken for a setting and backed off like any failure.
   */
  async function isolate(work: readonly EmbeddingWork[], failure: EmbeddingFailure): Promise<void> {
    const refused: EmbeddingWork[] = work.length === 1 ? [...work] : [];
    let embedded = 0;
    for (const item of work.length > 1 ? work : []) {
      try {
        await embedAndStore([item]);
        embedded++;
      } catch (error) {
        if (!refusesText(error)) throw error;
        refused.push(item);
      }
    }
    const everyRowRefused = work.length > 1 && embedded === 0;
    if (!answeredOnce || everyRowRefused || setAsideRows.size + refused.length > maxSetAside) throw failure;
    for (const item of refused) setAside(item, describeFailure(failure));
  }

  /** One batch; false when there was no work. */
  async function embedBatch(): Promise<boolean> {
    const path = await knownPath();
    const asked = scansAsked;
    // A search of every row once the rows listed (written, or found by the last search) are done.
    const everyRow = scansDone < asked && writtenRows.size === 0;
    // The written rows a batch holds, looked up by id (those found without work are done).
    const ids = everyRow
      ? undefined
      : [...writtenRows].slice(0, Math.min(provider.maxBatchSize, writtenPerLookup));
    if (ids?.length === 0) return false;
    for (const id of ids ?? []) writtenRows.delete(id);
    // A search brings up to `maxWrittenRows` rows, the ones past this batch listed for lookups by
    // id: a backfill of 100,000 rows searches the table 10 times, not 800.
    const found = await memories.embeddingWork(
      path,
      everyRow ? maxWrittenRows : provider.maxBatchSize + setAsideRows.size,
      clock.now(),
      ids,
    );
    const work: EmbeddingWork[] = [];
    // A batch of at most the provider's batch size of texts (two for a memory with context).
    let texts = 0;
    for (const item of found) {
      if (setAsideRows.get(item.memoryId) === item.contentHash) continue;
      if (item.content.trim() === "") setAside(item, "blank content");
      else if (texts + textCount(item) <= Math.max(provider.maxBatchSize, textCount(item))) {
        work.push(item);
        texts += textCount(item);
      } else writtenRows.add(item.memoryId);
    }
    const moreToDo = () => writtenRows.size > 0 || scansDone < scansAsked;
    if (work.length === 0) {
      if (!everyRow) return moreToDo();
      // Covered: every live row has a vector on the path (rows set aside keep the old paths).
      scansDone = asked;
      if (found.length === 0 && (cleanedFor === null || !samePath(cleanedFor, path)))
        await dropOlderPaths(path);
      return moreToDo();
    }
    try {
      await embedAndStore(work);
    } catch (error) {
      const failure = asEmbeddingFailure(error);
      if (failure === null || !refusesText(failure)) throw error;
      await isolate(work, failure);
    }
    return true;
  }

  async function loop(): Promise<unknown> {
    try {
      for (;;) {
        wokenWhileRunning = false;
        while (!stopping.signal.aborted && (await embedBatch())) failures = 0;
        if (stopping.signal.aborted || !wokenWhileRunning) break;
      }
      failures = 0;
      return null;
    } catch (error) {
      if (stopping.signal.aborted) return null;
      scheduleRetry(error);
      return error;
    }
  }

  function scheduleRetry(error: unknown): void {
    const failure = asEmbeddingFailure(error);
    const delay = Math.min(longestDelayMilliseconds, firstDelayMilliseconds * 2 ** failures);
    failures++;
    // Half to all of the delay, so replicas that failed together do not retry together.
    const jittered = Math.round(delay * (0.5 + random() / 2));
    const facts = { retryInMilliseconds: jittered, failures };
    if (failure === null) logger.error({ ...facts, err: error }, "embedding work failed; retrying later");
    else if (failure.retryable)
      logger.warn(
        { ...facts, kind: failure.kind, status: failure.status },
        "embeddings unavailable; retrying later",
      );
    else
      logger.error(
        { ...facts, kind: failure.kind, status: failure.status, message: failure.message },
        "embeddings refused; check the SVC_MEMORY_EMBEDDING_* settings; retrying later",
      );
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      // Every row: the written rows of the batch that failed are no longer listed.
      wake();
    }, jittered);
  }

  function start(): Promise<unknown> {
    if (running !== null) return running;
    const pass = loop().finally(() => {
      if (running === pass) running = null;
    });
    running = pass;
    return pass;
  }

  function wake(memoryIds?: readonly string[]): void {
    if (stopping.signal.aborted) return;
    // Kept even while every row is searched: a search that began before these rows were written
    // may miss them.
    for (const id of memoryIds ?? []) writtenRows.add(id);
    if (memoryIds === undefined || writtenRows.size > maxWrittenRows) {
      writtenRows.clear();
      scansAsked++;
    }
    if (running !== null) {
      wokenWhileRunning = true;
      return;
    }
    // A wake during a backoff waits for it: a write must not defeat the backoff.
    if (retryTimer !== null) return;
    void start();
  }

  // Unreferenced: a sweep never keeps the process alive.
  const sweepTimer = setInterval(() => wake(), options.sweepMilliseconds ?? sweepMillisecondsDefault);
  (sweepTimer as { unref?: () => void }).unref?.();

  return {
    wake,
    path: () => current,
    async drain() {
      if (stopping.signal.aborted) return;
      scansAsked++;
      if (retryTimer !== null) {
        clearTimeout(retryTimer);
        retryTimer = null;
      }
      // A pass already running may have looked for work before the caller's writes: run once more.
      if (running !== null) {
        wokenWhileRunning = true;
        await running;
      }
      const outcome = await start();
      if (outcome !== null) throw outcome;
    },
    async embedQuery(text, signal, accountId) {
      const key = accountId === undefined ? undefined : `${accountId}\u0000${text}`;
      const kept = key === undefined ? undefined : queryVectors.get(key);
      if (kept !== undefined && current !== null && samePath(kept.path, current)) return { ...kept };
      try {
        const answer = await provider.embed([text], signal, "query");
        // A new model seen first by a query: the rows are re-embedded on its path from now on.
        if (learn(answer)) wake();
        const embedded = { path: pathOf(answer), vector: answer.vectors[0] as Float32Array };
        if (key !== undefined) queryVectors.set(key, embedded);
        return { ...embedded };
      } catch (error) {
        if (asEmbeddingFailure(error) === null) logger.error({ err: error }, "query embedding failed");
        return { warning: semanticWarning(error) };
      }
    },
    async close() {
      stopping.abort();
      clearInterval(sweepTimer);
      if (retryTimer !== null) clearTimeout(retryTimer);
      retryTimer = null;
      await running;
    },
  };
}

/** The texts a memory is embedded from: its content, and with context the two together. */
export function embeddedTexts(item: EmbeddingWork): string[] {
  if (item.context === null) return [item.content];
  return [item.content, `${item.context.content.slice(-contextCharacters)}\n${item.content}`];
}

const textCount = (item: EmbeddingWork) => (item.context === null ? 1 : 2);

/** The unit vector of the sum of two unit vectors. */
export function combinedVector(first: Float32Array, second: Float32Array): Float32Array {
  const sum = new Float32Array(first.length);
  const unit = (vector: Float32Array) => Math.hypot(...vector) || 1;
  const [left, right] = [unit(first), unit(second)];
  for (let index = 0; index < sum.length; index++) sum[index] = first[index] / left + second[index] / right;
  const length = Math.hypot(...sum) || 1;
  for (let index = 0; index < sum.length; index++) sum[index] /= length;
  return sum;
}

/** The vectors to store (with context combined in) and each statement's own, by work item. */
function stored(work: readonly EmbeddingWork[], vectors: readonly Float32Array[]) {
  const embeddings: StoredEmbedding[] = [];
  const own: StoredEmbedding[] = [];
  let next = 0;
  for (const item of work) {
    const row = { accountId: item.accountId, memoryId: item.memoryId, contentHash: item.contentHash };
    const alone = vectors[next++] as Float32Array;
    const vector = item.context === null ? alone : combinedVector(alone, vectors[next++] as Float32Array);
    embeddings.push({ ...row, vector, contextId: item.context?.memoryId ?? null });
    own.push({ ...row, vector: alone });
  }
  return { embeddings, own };
}
