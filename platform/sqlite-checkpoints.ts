/**
 * Moves SQLite's WAL checkpoints off the serving thread: the server's connection stops
 * checkpointing on commit, and a thread of its own (sqlite-checkpoint-thread.ts) checkpoints once
 * the log passes `walBytes`. Used by the Node server with SQLite; returns a stopper.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "../core/index.ts";

const walBytes = 16 * 1024 * 1024;
const intervalMs = 200;

export async function startSqliteCheckpoints(settings: {
  sqlitePath: string;
  execute(sql: string): Promise<unknown>;
  logger: Logger;
}): Promise<() => Promise<void>> {
  const worker = new Worker(new URL("./sqlite-checkpoint-thread.ts", import.meta.url), {
    workerData: { sqlitePath: settings.sqlitePath, walBytes, intervalMs },
  });
  worker.on("message", (message: { error?: string }) =>
    settings.logger.warn({ error: message.error }, "WAL checkpoint failed; retrying"),
  );
  worker.on("error", (error) => settings.logger.error({ err: error }, "checkpoint thread failed"));
  await settings.execute("pragma wal_autocheckpoint = 0");
  return async () => {
    // Checkpointing on commit again: the connection's last commits and its close fold the log in.
    await settings.execute("pragma wal_autocheckpoint = 1000");
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.postMessage("close");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await worker.terminate();
  };
}
