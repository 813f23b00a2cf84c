/**
 * Moves SQLite's WAL checkpoints off the serving thread: the server's connection stops
 * checkpointing on commit, and a thread of its own (sqlite-checkpoint-thread.ts) checkpoints once
 * the log passes `walBytes`. Used by the Node server with SQLite; returns a stopper.
 *
 * Once that thread has copied every frame, the serving connection empties the log (TRUNCATE:
 * little is left to copy, so it is quick). Copying alone never empties it under steady writes:
 * SQLite starts the log over only when a write begins after a checkpoint copied every frame, and
 * a writer committing batch after batch always begins before that. The log grew without end:
 * 2.5 GB while 100,000 memories were imported, every page read searching its index. It is the
 * serving connection that empties it, between its transactions, because a log emptied by another
 * connection fails the next write of any transaction that read before it (SQLITE_BUSY_SNAPSHOT).
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "../core/index.ts";

export const walBytes = 16 * 1024 * 1024;
const intervalMs = 200;

export async function startSqliteCheckpoints(settings: {
  sqlitePath: string;
  /** Runs on the serving connection, between its transactions. */
  execute(sql: string): Promise<unknown>;
  logger: Logger;
}): Promise<() => Promise<void>> {
  const worker = new Worker(new URL("./sqlite-checkpoint-thread.ts", import.meta.url), {
    workerData: { sqlitePath: settings.sqlitePath, walBytes, intervalMs },
  });
  let emptying: Promise<unknown> | null = null;
  worker.on("message", (message: "copied" | { error: string }) => {
    if (message !== "copied") {
      settings.logger.warn({ error: message.error }, "WAL checkpoint failed; retrying");
      return;
    }
    emptying ??= settings
      .execute("pragma wal_checkpoint(TRUNCATE)")
      .catch((error: unknown) => settings.logger.warn({ err: error }, "emptying the WAL failed; retrying"))
      .finally(() => {
        emptying = null;
      });
  });
  worker.on("error", (error) => settings.logger.error({ err: error }, "checkpoint thread failed"));
  await settings.execute("pragma wal_autocheckpoint = 0");
  return async () => {
    await emptying;
    // Checkpointing on commit again: the connection's last commits and its close fold the log in.
    await settings.execute("pragma wal_autocheckpoint = 1000");
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.postMessage("close");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await worker.terminate();
  };
}
