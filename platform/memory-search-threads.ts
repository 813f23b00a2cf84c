/**
 * Recall ranked on worker threads (core/ports/memory-search.ts): `threads` workers, each with its
 * own database connection (plugins/storage/memory-reader.ts), so ranking uses every core and the
 * event loop stays free for requests. A recall goes to the thread that served the account last
 * if it is idle (its caches, core/memory/recall-cache.ts, hold what the account reads), otherwise
 * to the thread with the fewest in flight, equals taking turns; a thread that dies fails its
 * recalls (500) and is replaced.
 */
import { Worker } from "node:worker_threads";
import { LRUCache } from "lru-cache";
import type { Logger } from "../core/index.ts";
import type { RecalledMemory, RecallRequest } from "../core/memory/recall.ts";
import type { MemorySearch } from "../core/ports/memory-search.ts";
import type { MemoryReaderSettings } from "../plugins/storage/memory-reader.ts";

interface Pending {
  resolve(result: RecalledMemory[] | null): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
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
): MemorySearch {
  let nextId = 0;
  let turn = 0;
  // The thread each account's last recall went to.
  const lastThread = new LRUCache<string, number>({ max: 10_000 });
  let closing = false;

  function start(): Thread {
    const worker = new Worker(entry, {
      workerData: { databaseUrl: settings.databaseUrl, sqlitePath: settings.sqlitePath },
      resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMegabytes },
    });
    const pending = new Map<number, Pending>();
    const ready = new Promise<void>((resolve, reject) => {
      worker.once("message", (message) => (message === "ready" ? resolve() : reject(new Error("bad start"))));
      worker.once("error", reject);
    });
    ready.catch(() => {});
    const thread: Thread = { worker, ready, pending };
    type Answer = { id: number; result?: RecalledMemory[] | null; error?: string; code?: string };
    worker.on("message", (message: Answer | "ready") => {
      if (message === "ready") return;
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
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
      for (const waiting of pending.values())
        waiting.reject(new Error(`search thread exited (${code})`, { cause: failure }));
      pending.clear();
      const index = threads.indexOf(thread);
      if (index >= 0 && !closing) threads[index] = start();
    });
    return thread;
  }

  const threads = Array.from({ length: settings.threads }, start);

  return {
    async recall(accountId: string, request: RecallRequest) {
      // An idle thread that last served the account (its caches hold what the account reads);
      // otherwise the fewest in flight, among equals the next in turn, so the load is shared.
      const last = lastThread.get(accountId);
      let thread = last === undefined ? undefined : threads[last];
      if (thread === undefined || thread.pending.size > 0) {
        const first = turn++ % threads.length;
        thread = threads[first];
        for (let offset = 1; offset < threads.length; offset++) {
          const candidate = threads[(first + offset) % threads.length];
          if (candidate.pending.size < thread.pending.size) thread = candidate;
        }
      }
      lastThread.set(accountId, threads.indexOf(thread));
      await thread.ready;
      const id = nextId++;
      return new Promise<RecalledMemory[] | null>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, accountId, request });
      });
    },
    async close() {
      closing = true;
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
