/**
 * Recall ranked on worker threads (core/ports/memory-search.ts): `threads` workers, each with its
 * own database connection (plugins/storage/memory-reader.ts), so ranking uses every core and the
 * event loop stays free for requests. A thread takes one recall at a time on SQLite (each runs to
 * its end) and up to four on PostgreSQL (they wait on the database in turns); what finds every
 * thread full waits here, accounts taking turns (account-turns.ts), so a second account's recall
 * is next once a thread frees, not behind the queue of an account that sent many costly ones.
 *
 * Each account has a home thread, the one its first recall went to: only the home keeps what the
 * account's recalls read (the caches of core/memory/recall-cache.ts and the content analyses of
 * core/memory/scoring.ts), so the threads hold different accounts rather than the same rows twice
 * (2 × 130 MiB at 100,000 memories when both served one account). A recall goes home if the home
 * has room, otherwise to the thread with the fewest in flight, equals taking turns, which ranks it
 * without keeping anything. A thread that dies fails its recalls (500) and is replaced.
 */
import { Worker } from "node:worker_threads";
import { LRUCache } from "lru-cache";
import type { Logger } from "../core/index.ts";
import type { RecalledMemory, RecallRequest } from "../core/memory/recall.ts";
import type { MemorySearch } from "../core/ports/memory-search.ts";
import { isPostgresUrl } from "../plugins/storage/connection-settings.ts";
import type { MemoryReaderSettings } from "../plugins/storage/memory-reader.ts";
import { createAccountTurns } from "./account-turns.ts";

interface Pending {
  accountId: string;
  request: RecallRequest;
  resolve(result: RecalledMemory[] | null): void;
  reject(error: Error): void;
}

/** A thread's recalls so far and the bytes each of its caches counts. */
export interface ThreadCaches {
  recalls: number;
  bytes: Record<string, number>;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

const entry = new URL("./memory-search-thread.ts", import.meta.url);

// V8 sizes a thread's young generation for the machine's memory: 64-128 MiB of every search
// thread's heap, resident once a round of recalls has passed through it. What a thread keeps (its
// caches) lives in the old generation; a recall's garbage needs far less than that
// (docs/memory.md#what-the-server-keeps-in-memory).
const youngGenerationMegabytes = 16;

export function createMemorySearchThreads(
  settings: MemoryReaderSettings & { threads: number; logger: Logger },
): MemorySearch & { caches(): Promise<ThreadCaches[]> } {
  let nextId = 0;
  let turn = 0;
  // Each account's home thread (its index); an account whose entry leaves gets a new home.
  const homes = new LRUCache<string, number>({ max: 10_000 });
  let closing = false;

  function start(): Thread {
    const worker = new Worker(entry, {
      workerData: { databaseUrl: settings.databaseUrl, sqlitePath: settings.sqlitePath },
      resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMegabytes },
    });
    const pending = new Map<number, Pending>();
    // Recalls posted before the thread listens wait in its port until it does.
    const thread: Thread = { worker, pending };
    type Answer = { id: number; result?: RecalledMemory[] | null; error?: string; code?: string };
    worker.on("message", (message: Answer) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      turns.finished(waiting.accountId);
      dispatch();
      if (message.error !== undefined) {
        // The thread's error, rebuilt as the cause, so it is classified as it would be here.
        const cause = Object.assign(new Error(message.error), { code: message.code });
        waiting.reject(new Error(`search thread: ${message.error}`, { cause }));
      } else waiting.resolve(message.result as RecalledMemory[] | null);
    });
    // What ended the thread, if anything did: its recalls in flight fail with it as their cause, so
    // a database that cut the thread's connection is a 503 like any other (an unheard pool error).
    let failure: unknown;
    worker.on("error", (error) => {
      failure = error;
      settings.logger.error({ err: error }, "search thread failed");
    });
    worker.on("exit", (code) => {
      for (const waiting of pending.values()) {
        turns.finished(waiting.accountId);
        waiting.reject(new Error(`search thread exited (${code})`, { cause: failure }));
      }
      pending.clear();
      const index = threads.indexOf(thread);
      if (index >= 0 && !closing) threads[index] = start();
      dispatch();
    });
    return thread;
  }

  const threads = Array.from({ length: settings.threads }, start);
  const turns = createAccountTurns<Pending>();
  const perThread = isPostgresUrl(settings.databaseUrl) ? 4 : 1;

  /** A thread with room for the account's recall: its home if it has room, else the emptiest. */
  function threadFor(accountId: string): Thread | undefined {
    const home = homes.get(accountId);
    const preferred = home === undefined ? undefined : threads[home];
    if (preferred !== undefined && preferred.pending.size < perThread) return preferred;
    const first = turn++ % threads.length;
    let thread = threads[first];
    for (let offset = 1; offset < threads.length; offset++) {
      const candidate = threads[(first + offset) % threads.length];
      if (candidate.pending.size < thread.pending.size) thread = candidate;
    }
    return thread.pending.size < perThread ? thread : undefined;
  }

  /** Sends waiting recalls, in the accounts' turns, while a thread has room. */
  function dispatch() {
    while (turns.waiting && threads.some((thread) => thread.pending.size < perThread)) {
      const next = turns.take();
      if (next === null) return;
      const recall = next.item;
      const thread = threadFor(recall.accountId) as Thread;
      const index = threads.indexOf(thread);
      const home = homes.get(recall.accountId) ?? index;
      homes.set(recall.accountId, home);
      const keep = home === index;
      const id = nextId++;
      thread.pending.set(id, recall);
      thread.worker.postMessage({ id, accountId: recall.accountId, request: recall.request, keep });
    }
  }

  return {
    async recall(accountId: string, request: RecallRequest) {
      if (closing) throw new Error("search threads are closed");
      return new Promise<RecalledMemory[] | null>((resolve, reject) => {
        turns.enqueue(accountId, { accountId, request, resolve, reject });
        dispatch();
      });
    },
    /** Each thread's recalls so far and what its caches count. */
    caches: () =>
      Promise.all(
        threads.map(
          ({ worker }) =>
            new Promise<ThreadCaches>((resolve) => {
              const answer = (message: { caches?: ThreadCaches }) => {
                if (message.caches === undefined) return;
                worker.off("message", answer);
                resolve(message.caches);
              };
              worker.on("message", answer);
              worker.postMessage("caches");
            }),
        ),
      ),
    async close() {
      closing = true;
      for (const waiting of turns.drain()) waiting.reject(new Error("search threads are closed"));
      await Promise.all(
        threads.map(async (thread) => {
          const exited = new Promise((resolve) => thread.worker.once("exit", resolve));
          thread.worker.postMessage("close");
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
          await thread.worker.terminate();
        }),
      );
    },
  };
}
