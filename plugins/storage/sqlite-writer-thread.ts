/**
 * The SQLite writer (sqlite-writer.ts): runs the serving connection's writes, and every statement
 * of its transactions, over a connection of its own on this thread, so SQLite's own work (a
 * posting statement's B-tree inserts, a 16 MiB import's commit) never holds the thread that
 * answers every account. Statements arrive one at a time, under the connection lock the server
 * holds for them (sql-execution.ts), and are answered in order.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { trimHeapWhenIdle } from "../../lib/idle-heap-trim/index.ts";
import { lowerThreadPriority } from "../../lib/thread-priority/index.ts";
import { sqliteServingPragmas } from "./connection-settings.ts";
import { runPrepared, type SqliteDatabase, type SqliteStatement } from "./sql-execution.ts";
import type { WriterAnswer, WriterMessage } from "./sqlite-writer.ts";

const { sqlitePath } = workerData as { sqlitePath: string };
// Its work is an account's large write: on a busy core the serving thread, which answers every
// account, runs first (as beside the relation and pattern threads).
lowerThreadPriority();
trimHeapWhenIdle();
const port = parentPort as NonNullable<typeof parentPort>;
const database = new Database(sqlitePath, { fileMustExist: true });
for (const pragma of sqliteServingPragmas) database.pragma(pragma);

const statements = new Map<string, SqliteStatement>();

port.on("message", (message: WriterMessage) => {
  if (message === "close") {
    // Said once closed: the server ends the thread then (Deno's has no `port.close()`).
    database.close();
    port.postMessage("closed");
    return;
  }
  try {
    let rows: unknown[] | undefined;
    if ("exec" in message) database.exec(message.exec);
    else rows = runPrepared(database as unknown as SqliteDatabase, statements, message.text, message.values);
    port.postMessage({ id: message.id, rows, inTransaction: database.inTransaction } satisfies WriterAnswer);
  } catch (error) {
    const { message: text, code } = error as { message: string; code?: string };
    port.postMessage({
      id: message.id,
      error: text,
      code,
      inTransaction: database.inTransaction,
    } satisfies WriterAnswer);
  }
});
port.postMessage("ready");
