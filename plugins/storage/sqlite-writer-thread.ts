/**
 * The SQLite writer (sqlite-writer.ts): runs the serving connection's writes, and every statement
 * of its transactions, over a connection of its own on this thread, so SQLite's own work (a
 * posting statement's B-tree inserts, a 16 MiB import's commit) never holds the thread that
 * answers every account. Statements arrive one at a time, under the connection lock the server
 * holds for them (sql-execution.ts), and are answered in order.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { lowerThreadPriority } from "../../lib/thread-priority/index.ts";
import { sqliteServingPragmas } from "./connection-settings.ts";

export type WriterMessage =
  | { id: number; text: string; values: unknown[] }
  | { id: number; exec: string }
  | "close";
export type WriterAnswer = { id: number; inTransaction: boolean } & (
  | { rows?: unknown[] }
  | { error: string; code?: string }
);

const { sqlitePath } = workerData as { sqlitePath: string };
// Its work is an account's large write: on a busy core the serving thread, which answers every
// account, runs first (as beside the relation and pattern threads).
lowerThreadPriority();
const port = parentPort as NonNullable<typeof parentPort>;
const database = new Database(sqlitePath, { fileMustExist: true });
for (const pragma of sqliteServingPragmas) database.pragma(pragma);

// Statement texts are few (the IN lists vary in length only); bounded anyway.
const statements = new Map<string, Database.Statement>();
const prepare = (text: string) => {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = database.prepare(text);
    if (statements.size >= 2_000) statements.clear();
    statements.set(text, statement);
  }
  return statement;
};

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
    else {
      const statement = prepare(message.text);
      if (statement.reader) rows = statement.all(message.values);
      else statement.run(message.values);
    }
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
