/**
 * Lowers the calling thread's scheduling priority (Linux takes a thread id where it asks for a
 * process), so on a busy core the serving thread runs first. Elsewhere, or without /proc, the
 * thread keeps the server's priority.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

export function lowerThreadPriority(niceness = 10): void {
  try {
    setPriority(Number(readlinkSync("/proc/thread-self").split("/").at(-1)), niceness);
  } catch {
    // Not Linux, or no /proc.
  }
}
