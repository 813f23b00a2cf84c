/**
 * A pattern thread (platform/pattern-threads.ts): runs the pattern tasks it is sent and posts
 * their outputs back. It first lowers its own scheduling priority (Linux takes a thread id
 * where it asks for a process), so on a busy core the serving thread runs first.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { type PatternTaskName, patternTasks } from "../core/sandboxes/patterns/pattern-tasks.ts";

const lowerPriority = 10;
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").at(-1)), lowerPriority);
} catch {
  // Not Linux, or no /proc: the thread keeps the server's priority.
}

const port = parentPort as NonNullable<typeof parentPort>;
port.on("message", (message: { name: PatternTaskName; input: unknown }) => {
  try {
    const task = patternTasks[message.name] as (input: unknown) => unknown;
    port.postMessage({ output: task(message.input) });
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
