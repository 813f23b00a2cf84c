/**
 * Relation detection's comparisons on a thread of their own (core/ports/relation-detection.ts):
 * a 500-memory import compares 50,000 pairs of texts, seconds of CPU whose size the tenant
 * chooses, which the serving thread used to work out in slices between other requests. The
 * thread (relation-thread.ts) runs at a lower scheduling priority and takes the link runs'
 * comparisons in the order they were sent, at most 1,000 a message, so runs of several accounts
 * take turns. It starts with the first run; if it dies, the runs it held fail (their link jobs
 * stay queued and are linked again) and the next run starts a new one.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "../core/index.ts";
import type { DetectedRelation } from "../core/memory/relations.ts";
import type { RelationDetection } from "../core/ports/relation-detection.ts";
import type { RelationThreadMessage } from "./relation-thread.ts";

interface Thread {
  worker: Worker;
  pending: Map<
    number,
    { resolve(relations: Array<DetectedRelation | null>): void; reject(error: Error): void }
  >;
  exited: boolean;
}

const entry = new URL("./relation-thread.ts", import.meta.url);

// As for the search threads (memory-search-threads.ts): the young generation V8 would size for
// the machine is resident once a few runs have passed; a comparison's garbage needs far less.
const youngGenerationMegabytes = 16;

export function createRelationThread(settings: { logger: Logger }): RelationDetection {
  let thread: Thread | null = null;
  let nextId = 0;
  let nextRun = 0;
  let closing = false;

  function current(): Thread {
    if (thread !== null && !thread.exited) return thread;
    const worker = new Worker(entry, {
      resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMegabytes },
    });
    const started: Thread = { worker, pending: new Map(), exited: false };
    type Answer = { id: number; relations?: Array<DetectedRelation | null>; error?: string };
    worker.on("message", (message: Answer) => {
      const waiting = started.pending.get(message.id);
      started.pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(`relation thread: ${message.error}`));
      else waiting?.resolve(message.relations ?? []);
    });
    worker.on("error", (error) => settings.logger.error({ err: error }, "relation thread failed"));
    worker.on("exit", () => {
      started.exited = true;
      for (const waiting of started.pending.values()) waiting.reject(new Error("relation thread exited"));
      started.pending.clear();
    });
    thread = started;
    return started;
  }

  const post = (target: Thread, message: RelationThreadMessage) => target.worker.postMessage(message);

  return {
    start() {
      if (closing) throw new Error("the relation thread is closed");
      const target = current();
      const run = nextRun++;
      let sent = false;
      return {
        compare(texts, pairs) {
          // The thread holding this run's texts is gone: the run cannot go on without them.
          if (target.exited) return Promise.reject(new Error("relation thread exited"));
          return new Promise((resolve, reject) => {
            const id = nextId++;
            target.pending.set(id, { resolve, reject });
            sent = true;
            post(target, { id, run, texts: texts as string[], pairs });
          });
        },
        end() {
          if (sent && !target.exited) post(target, { run, end: true });
        },
      };
    },
    async close() {
      closing = true;
      await thread?.worker.terminate();
    },
  };
}
