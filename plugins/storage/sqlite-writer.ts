/**
 * The server's side of the SQLite writer thread (sqlite-writer-thread.ts). Statements go to the
 * thread in order and their answers come back in order; an error comes back with SQLite's code
 * (SQLITE_CONSTRAINT_UNIQUE, SQLITE_FULL, …), so it is classified as it would be here. The thread
 * keeps the process alive only while a statement is out.
 */
import { Worker } from "node:worker_threads";

/** What the server sends the thread, and what the thread answers. */
export type WriterMessage =
  | { id: number; text: string; values: unknown[] }
  | { id: number; exec: string }
  | "close";
export type WriterAnswer = { id: number; inTransaction: boolean } & (
  | { rows?: unknown[] }
  | { error: string; code?: string }
);

export interface SqliteWriter {
  /** Runs a statement: a reader's rows, or none. */
  run(text: string, values: unknown[]): Promise<unknown[]>;
  /** Runs SQL without parameters (`begin`, `commit`, `rollback`). */
  exec(text: string): Promise<void>;
  /** Whether the writer's connection is inside a transaction, as of its last answer (never once ended). */
  readonly inTransaction: boolean;
  /** The thread has ended (closed, or died): every statement sent is refused. */
  readonly ended: boolean;
  close(): Promise<void>;
}

const entry = new URL("./sqlite-writer-thread.ts", import.meta.url);

export async function startSqliteWriter(sqlitePath: string): Promise<SqliteWriter> {
  // Its young generation as the other threads' (platform/memory-search-threads.ts): V8 would size
  // it for the machine's memory, 64-128 MiB resident once an import has passed through.
  const worker = new Worker(entry, {
    workerData: { sqlitePath },
    resourceLimits: { maxYoungGenerationSizeMb: 16 },
  });
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>();
  let nextId = 0;
  let inTransaction = false;
  let ended: Error | undefined;

  const failAll = (error: Error) => {
    ended ??= error;
    for (const waiting of pending.values()) waiting.reject(ended);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
    worker.once("exit", () => reject(new Error("The SQLite writer thread ended before it was ready")));
  });
  worker.on("error", (error) => failAll(error));
  worker.on("exit", () => failAll(new Error("The SQLite writer thread has ended")));
  await ready;
  worker.unref();
  let closed: (() => void) | undefined;
  worker.on("message", (answer: WriterAnswer | "closed") => {
    if (answer === "closed") return closed?.();
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if (pending.size === 0) worker.unref();
    inTransaction = answer.inTransaction;
    if ("error" in answer) waiting.reject(Object.assign(new Error(answer.error), { code: answer.code }));
    else waiting.resolve(answer.rows ?? []);
  });

  const send = (message: WriterMessage & { id: number }) =>
    new Promise<unknown[]>((resolve, reject) => {
      if (ended) return reject(ended);
      if (pending.size === 0) worker.ref();
      pending.set(message.id, { resolve, reject });
      worker.postMessage(message);
    });

  return {
    run: (text, values) => send({ id: nextId++, text, values }),
    exec: async (text) => {
      await send({ id: nextId++, exec: text });
    },
    get inTransaction() {
      return inTransaction && ended === undefined;
    },
    get ended() {
      return ended !== undefined;
    },
    async close() {
      if (ended) return;
      const done = new Promise<void>((resolve) => {
        closed = resolve;
      });
      worker.ref();
      worker.postMessage("close" satisfies WriterMessage);
      await done;
      await worker.terminate();
    },
  };
}
