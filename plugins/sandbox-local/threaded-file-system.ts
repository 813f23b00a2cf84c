/**
 * A sandbox's file system with its reads, listings and walks on the file thread (file-thread.ts),
 * off the thread that serves every account; writes and streams stay here (a stream's descriptor
 * is read and written where it was opened). The thread starts with the first call, and a thread
 * that has ended is replaced by the next one; calls in flight when it ends fail.
 */
import { Worker } from "node:worker_threads";
import { type ErrorCode, ServiceError } from "../../core/index.ts";
import type { SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import { createSandboxFileSystem } from "./file-system.ts";
import type { FileThreadAnswer, FileThreadCall, FileThreadFailure, ThreadedMethod } from "./file-thread.ts";
import type { SandboxRoot } from "./path-resolution.ts";

const entry = new URL("./file-thread.ts", import.meta.url);

export interface FileThread {
  /** `roots` and `owner` as createSandboxFileSystem takes them. */
  files(roots: SandboxRoot[], owner: { uid: number; gid: number } | null): SandboxFileSystem;
  close(): Promise<void>;
}

export function createFileThread(): FileThread {
  let worker: Worker | null = null;
  let nextId = 0;
  let closed = false;
  const pending = new Map<
    number,
    { parts: unknown[][]; resolve(value: unknown): void; reject(error: unknown): void }
  >();

  function failAll(error: Error) {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  }

  function started(): Worker {
    if (worker !== null) return worker;
    // A small young generation, as the other threads have (docs/memory.md, footprint).
    const thread = new Worker(entry, { resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    thread.unref();
    thread.on("message", (answer: FileThreadAnswer) => {
      const call = pending.get(answer.id);
      if ("part" in answer) {
        call?.parts.push(answer.part);
        return;
      }
      pending.delete(answer.id);
      if ("failure" in answer) call?.reject(rebuilt(answer.failure));
      else if (call?.parts.length) call.resolve(call.parts.concat([answer.value as unknown[]]).flat());
      else call?.resolve(answer.value);
      if (pending.size === 0) thread.unref();
    });
    thread.on("error", (error) => failAll(new Error("file thread failed", { cause: error })));
    thread.on("exit", () => {
      if (worker === thread) worker = null;
      failAll(new Error("file thread exited"));
    });
    worker = thread;
    return thread;
  }

  function call(
    roots: SandboxRoot[],
    owner: FileThreadCall["owner"],
    method: ThreadedMethod,
    args: FileThreadCall["args"],
  ): Promise<unknown> {
    if (closed) return Promise.reject(new Error("file thread is closed"));
    const thread = started();
    const id = nextId++;
    // Referenced while a call waits, so a process waiting on nothing else still hears the answer.
    thread.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { parts: [], resolve, reject });
      thread.postMessage({ id, roots, owner, method, args } satisfies FileThreadCall);
    });
  }

  return {
    files(roots, owner) {
      const here = createSandboxFileSystem(roots, owner);
      const on =
        <T>(method: ThreadedMethod) =>
        (...args: FileThreadCall["args"]) =>
          call(roots, owner, method, args) as Promise<T>;
      return {
        ...here,
        stat: on("stat"),
        readFile: on("readFile"),
        readBytes: on("readBytes"),
        list: on("list"),
        walk: on("walk"),
      };
    },
    async close() {
      closed = true;
      const thread = worker;
      worker = null;
      failAll(new Error("file thread is closed"));
      await thread?.terminate();
    },
  };
}

function rebuilt(failure: FileThreadFailure): Error {
  if ("service" in failure) {
    const { code, message, details, remediation } = failure.service;
    return new ServiceError(code as ErrorCode, message, {
      ...(details !== undefined && { details }),
      ...(remediation !== null && { remediation }),
    });
  }
  return Object.assign(new Error(failure.message), failure.code === undefined ? {} : { code: failure.code });
}
