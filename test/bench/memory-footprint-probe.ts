/**
 * Preloaded into the server by test/bench/memory-footprint.ts (`node --import`): on SIGUSR2 the
 * server's main thread writes, to CAIRN_FOOTPRINT_OUT, its own V8 heap and every worker thread's
 * (each search thread's, the pattern thread's, the checkpoint thread's), after a full collection
 * when the server runs with --expose-gc. Nothing of the server is changed: worker_threads.Worker is
 * wrapped so the probe knows the threads and their entry files.
 */
import { writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import workerThreads from "node:worker_threads";

const output = process.env.CAIRN_FOOTPRINT_OUT;
const mebibytes = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const heap = (statistics: ReturnType<typeof getHeapStatistics>) => ({
  usedMiB: mebibytes(statistics.used_heap_size),
  totalMiB: mebibytes(statistics.total_heap_size),
  externalMiB: mebibytes(statistics.external_memory),
  mallocedMiB: mebibytes(statistics.malloced_memory),
});

const collect = (globalThis as { gc?: () => void }).gc;
const channel = new BroadcastChannel("cairn-footprint");
// Node's channel can be unreferenced (the DOM type does not say so): it keeps no thread alive.
(channel as unknown as { unref(): void }).unref();

// A worker collects its garbage when asked, so its heap figures count what it keeps.
// A worker collects its garbage when asked, so its heap figures count what it keeps, and says
// what its caches count (a search thread's: core/memory/recall-cache.ts, scoring.ts).
if (!workerThreads.isMainThread)
  channel.onmessage = async (event) => {
    if ((event as MessageEvent).data !== "collect") return;
    collect?.();
    const { recallCacheBytes } = await import("../../core/memory/recall-cache.ts");
    const counted = recallCacheBytes();
    channel.postMessage({ threadId: workerThreads.threadId, counted });
  };

if (workerThreads.isMainThread && output) {
  const threads: Array<{ entry: string; worker: workerThreads.Worker }> = [];
  const Original = workerThreads.Worker;
  class Counted extends Original {
    constructor(entry: string | URL, options?: workerThreads.WorkerOptions) {
      super(entry, options);
      const name = String(entry).split("/").at(-1) ?? String(entry);
      threads.push({ entry: name, worker: this });
      this.once("exit", () =>
        threads.splice(
          threads.findIndex((thread) => thread.worker === this),
          1,
        ),
      );
    }
  }
  (workerThreads as { Worker: typeof Original }).Worker = Counted;
  syncBuiltinESMExports();
  process.on("SIGUSR2", async () => {
    collect?.();
    let answered = 0;
    const countedBy = new Map<number, Record<string, number>>();
    const collected = new Promise<void>((resolve) => {
      channel.onmessage = (event) => {
        const { threadId, counted } = (event as MessageEvent).data as {
          threadId: number;
          counted: Record<string, number>;
        };
        countedBy.set(threadId, counted);
        if (++answered === threads.length) resolve();
      };
    });
    channel.postMessage("collect");
    await Promise.race([collected, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const usage = process.memoryUsage();
    const workers = await Promise.all(
      threads.map(async ({ entry, worker }) => ({
        entry,
        counted: Object.fromEntries(
          Object.entries(countedBy.get(worker.threadId) ?? {}).map(([name, bytes]) => [
            name,
            mebibytes(bytes),
          ]),
        ),
        ...heap(
          await (
            worker as unknown as { getHeapStatistics(): Promise<ReturnType<typeof getHeapStatistics>> }
          ).getHeapStatistics(),
        ),
      })),
    );
    writeFileSync(
      output,
      JSON.stringify({
        main: heap(getHeapStatistics()),
        mainSpaces: Object.fromEntries(
          getHeapSpaceStatistics().map((space) => [space.space_name, mebibytes(space.space_size)]),
        ),
        arrayBuffersMiB: mebibytes(usage.arrayBuffers),
        workers,
      }),
    );
  });
}
