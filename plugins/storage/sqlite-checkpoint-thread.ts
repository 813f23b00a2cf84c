/**
 * The SQLite checkpointer (platform/create-platform.ts): copies the write-ahead log into the
 * database file on a thread of its own, so no request's commit pays for it (the serving
 * connection's automatic checkpoints are off). PASSIVE: it never waits for readers or the
 * writer, it copies what it can; the next pass copies the rest. A pass that copied every frame
 * of a log past `walBytes`, or of any log once "empty" was asked for, says so (`copied`, with the
 * log's size then). Asked to `truncate`, it empties the log (TRUNCATE) while the serving
 * connection's writes wait for its answer (sqlite-checkpoints.ts), waiting for readers up to 5 s
 * when told the log is past its bound, else 100 ms.
 */
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { trimHeapWhenIdle } from "../../lib/idle-heap-trim/index.ts";

const { sqlitePath, walBytes, intervalMs } = workerData as {
  sqlitePath: string;
  walBytes: number;
  intervalMs: number;
};
const database = new Database(sqlitePath, { fileMustExist: true });
database.pragma("busy_timeout = 5000");
const port = parentPort as NonNullable<typeof parentPort>;
trimHeapWhenIdle();

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

port.on("message", (message: "empty" | "close" | { truncate: boolean }) => {
  if (typeof message === "object") {
    try {
      database.pragma(`busy_timeout = ${message.truncate ? 5000 : 100}`);
      const [result] = database.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
      port.postMessage({ emptied: { busy: result?.busy === 1 } });
    } catch (error) {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
      port.postMessage({ emptied: { busy: true } });
    } finally {
      database.pragma("busy_timeout = 5000");
    }
    return;
  }
  if (message === "empty") emptyAsked = true;
  if (message !== "close") return;
  clearInterval(timer);
  database.close();
  port.close();
});
