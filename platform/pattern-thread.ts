/**
 * A pattern thread (platform/pattern-threads.ts): runs the pattern tasks it is sent and posts
 * their outputs back. It first lowers its own scheduling priority, so on a busy core the serving
 * thread runs first.
 */
import { parentPort } from "node:worker_threads";
import { type PatternTaskName, patternTasks } from "../core/sandboxes/patterns/pattern-tasks.ts";
import { lowerThreadPriority } from "../lib/thread-priority/index.ts";

lowerThreadPriority();

const port = parentPort as NonNullable<typeof parentPort>;
port.on("message", (message: { name: PatternTaskName; input: unknown }) => {
  try {
    const task = patternTasks[message.name] as (input: unknown) => unknown;
    port.postMessage({ output: task(message.input) });
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
