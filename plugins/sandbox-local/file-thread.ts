/**
 * The file thread (threaded-file-system.ts): runs a sandbox's file reads, listings and walks
 * (file-system.ts) on a thread of its own, at a lower scheduling priority than the serving
 * thread. A grep over 50,000 files is some 750,000 file-system calls, each a promise to settle;
 * on the serving thread they left it no time for any other account. The calls are the synchronous
 * ones (host-calls.ts), made here at this thread's priority, not on libuv's shared pool.
 */
import { parentPort } from "node:worker_threads";
import { ServiceError } from "../../core/index.ts";
import { trimHeapWhenIdle } from "../../lib/idle-heap-trim/index.ts";
import { lowerThreadPriority } from "../../lib/thread-priority/index.ts";
import { createSandboxFileSystem } from "./file-system.ts";
import { synchronousHostCalls } from "./host-calls.ts";
import type { SandboxRoot } from "./path-resolution.ts";

export type ThreadedMethod = "stat" | "readFile" | "readBytes" | "list" | "walk";

export interface FileThreadCall {
  id: number;
  roots: SandboxRoot[];
  owner: { uid: number; gid: number } | null;
  method: ThreadedMethod;
  args: [string, ...number[]];
}

/** What failed: a ServiceError's fields, or a host error's message and errno code. */
export type FileThreadFailure =
  | { service: { code: string; message: string; details: unknown; remediation: string | null } }
  | { message: string; code?: string };

export type FileThreadAnswer =
  | { id: number; value: unknown }
  | { id: number; part: unknown[] }
  | { id: number; failure: FileThreadFailure };

/**
 * A long answer (a walk of 50,000 entries) goes in parts of this many entries: the serving thread
 * reads each part in a turn of its own (a whole walk took it 25 ms at once).
 */
const partLength = 2_000;

lowerThreadPriority();
trimHeapWhenIdle();
const port = parentPort as NonNullable<typeof parentPort>;
const calls = synchronousHostCalls();

port.on("message", async ({ id, roots, owner, method, args }: FileThreadCall) => {
  try {
    const files = createSandboxFileSystem(roots, owner, calls);
    let value = await (files[method] as (...given: unknown[]) => Promise<unknown>)(...args);
    if (Array.isArray(value)) {
      let start = 0;
      for (; value.length - start > partLength; start += partLength)
        port.postMessage({ id, part: value.slice(start, start + partLength) } satisfies FileThreadAnswer);
      value = value.slice(start);
    }
    // Bytes move instead of being copied (readBytes' buffer is its own, never a pooled one).
    const moved = value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : [];
    port.postMessage({ id, value } satisfies FileThreadAnswer, moved);
  } catch (error) {
    port.postMessage({ id, failure: failureOf(error) } satisfies FileThreadAnswer);
  }
});

function failureOf(error: unknown): FileThreadFailure {
  if (error instanceof ServiceError) {
    const { code, message, details, remediation } = error;
    return { service: { code, message, details, remediation } };
  }
  const { message, code } = error as { message?: string; code?: string };
  return { message: message ?? String(error), ...(code !== undefined && { code }) };
}
