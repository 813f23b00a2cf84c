/**
 * The SQLite checkpointer (platform/create-platform.ts): copies the write-ahead log into the
 * database file on a thread of its own, so no request's commit pays for it (the serving
 * connection's automatic checkpoints are off). PASSIVE: it never waits for readers or the
 * writer, it copies what it can; the next pass copies the rest. A pass that copied every frame
 * of a log past `walBytes`, or of any log once "empty" was asked for, says so (`copied`, with the
 * log's size then): the serving connection then empties the log (sqlite-checkpoints.ts).
 */
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { sqlitePath, walBytes, intervalMs } = workerData as {
  sqlitePath: string;
  walBytes: number;
  intervalMs: number;
};
const database = new Database(sqlitePath, { fileMustExist: true });
database.pragma("busy_timeout = 5000");
const port = parentPort as NonNullable<typeof parentPort>;

const walSize = () => {
  try {
    return statSync(`${sqlitePath}-wal`).size;
  } catch {
    return 0;
  }
};

// "empty" was asked for and no pass has copied the whole log since.
let emptyAsked = false;

const timer = setInterval(() => {
  if (!emptyAsked && walSize() < walBytes) return;
  try {
    const [result] = database.pragma("wal_checkpoint(PASSIVE)") as Array<{
      log: number;
      checkpointed: number;
    }>;
    if (result !== undefined && result.log === result.checkpointed) {
      emptyAsked = false;
      // The log's size as copied: the serving connection empties it only if nothing came since.
      port.postMessage({ copied: walSize() });
    }
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}, intervalMs);

port.on("message", (message) => {
  if (message === "empty") emptyAsked = true;
  if (message !== "close") return;
  clearInterval(timer);
  database.close();
  port.close();
});
