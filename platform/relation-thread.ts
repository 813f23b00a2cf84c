/**
 * The relation thread (relation-threads.ts): works out the comparisons of link runs
 * (core/memory/relation-runs.ts) and posts the relations back, at a lower scheduling priority
 * than the serving thread. It keeps each run's texts and analyses until the run ends.
 */
import { parentPort } from "node:worker_threads";
import { createRelationRunTexts, type RelationRunTexts } from "../core/memory/relation-runs.ts";
import { trimHeapWhenIdle } from "../lib/idle-heap-trim/index.ts";
import { lowerThreadPriority } from "../lib/thread-priority/index.ts";

export type RelationThreadMessage =
  | { id: number; run: number; texts: string[]; pairs: Uint32Array }
  | { run: number; end: true };

lowerThreadPriority();
trimHeapWhenIdle();

const runs = new Map<number, RelationRunTexts>();
const port = parentPort as NonNullable<typeof parentPort>;
port.on("message", (message: RelationThreadMessage) => {
  if ("end" in message) {
    runs.delete(message.run);
    return;
  }
  try {
    let run = runs.get(message.run);
    if (run === undefined) {
      run = createRelationRunTexts();
      runs.set(message.run, run);
    }
    run.add(message.texts);
    const relations = [];
    for (let index = 0; index < message.pairs.length; index += 2)
      relations.push(run.detect(message.pairs[index], message.pairs[index + 1]));
    port.postMessage({ id: message.id, relations });
  } catch (error) {
    port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
