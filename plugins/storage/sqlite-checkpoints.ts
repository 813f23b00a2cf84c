/**
 * Moves SQLite's WAL checkpoints off the serving thread: the server's connection stops
 * checkpointing on commit, and a thread of its own (sqlite-checkpoint-thread.ts) checkpoints once
 * the log passes `walBytes`. Used by the Node server with SQLite; returns a stopper.
 *
 * Once that thread has copied every frame, and no frame came after its pass, the log is emptied
 * (TRUNCATE). Copying alone never empties it under steady writes: SQLite starts the log over only
 * when a write begins after a checkpoint copied every frame, and a writer committing batch after
 * batch always begins before that. The log grew without end: 2.5 GB while 100,000 memories were
 * imported, every page read searching its index. The thread empties it while the serving
 * connection's writes wait between their transactions (a log emptied under a transaction that
 * has read fails that transaction's next write, SQLITE_BUSY_SNAPSHOT), with the event loop free:
 * the frames committed since the thread's pass are copied then, 300-440 ms for an import's, which
 * had stalled every account when the serving connection copied them itself.
 */
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { Logger } from "../../core/index.ts";

export const walBytes = 16 * 1024 * 1024;
/** Past this the serving connection empties the log even though frames came after the thread's pass. */
const maxWalBytesBeforeEmptying = 4 * walBytes;
const intervalMs = 200;

function walSize(sqlitePath: string): number {
  return statSync(`${sqlitePath}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}

export interface SqliteCheckpoints {
  /** Empties the log soon, whatever its size (after a forget). */
  emptySoon(): void;
  stop(): Promise<void>;
}

/**
 * Empties SQLite's log from the serving connection (TRUNCATE: copies what is left into the
 * database, then cuts the log to zero bytes). A call during a run leads to one more run after it,
 * so every call is followed by a run that started after it. `busy` is told when a reader kept the
 * log from being emptied (or the statement failed); `idle` waits for the run under way. A reader
 * is not waited for (the wait would sleep on the serving thread) while the log is under
 * `maxWalBytesBeforeEmptying`; past it, the log's bound comes first.
 */
export function logEmptier(
  settings: { sqlitePath: string; emptyLog(wait: boolean): Promise<{ busy: boolean }> },
  logger: Logger,
  busy: () => void = () => {},
): { empty(): void; idle(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  const run = async () => {
    do {
      again = false;
      try {
        const wait = walSize(settings.sqlitePath) >= maxWalBytesBeforeEmptying;
        if ((await settings.emptyLog(wait)).busy) busy();
      } catch (error) {
        logger.warn({ err: error }, "emptying the WAL failed; retrying");
        busy();
      }
    } while (again);
    running = null;
  };
  return {
    empty() {
      if (running !== null) again = true;
      else running = run();
    },
    idle: async () => {
      await running;
    },
  };
}

/** Longest the serving connection's writes wait for the thread to empty the log. */
const emptyingMs = 30_000;

export async function startSqliteCheckpoints(settings: {
  sqlitePath: string;
  /** Runs on the serving connection, between its transactions. */
  execute(sql: string): Promise<unknown>;
  /** Runs work while the serving connection's writes wait (sql-execution.ts). */
  whileWritesWait<T>(work: () => Promise<T>): Promise<T>;
  logger: Logger;
}): Promise<SqliteCheckpoints> {
  const worker = new Worker(new URL("./sqlite-checkpoint-thread.ts", import.meta.url), {
    workerData: { sqlitePath: settings.sqlitePath, walBytes, intervalMs },
  });
  let stopped = false;
  // A reader kept the log from being emptied: the thread's next pass tries again.
  const askAgain = () => {
    if (!stopped) worker.postMessage("empty");
  };
  // The emptying under way on the thread (the emptier runs one at a time).
  let emptied: ((outcome: { busy: boolean }) => void) | null = null;
  const settle = (outcome: { busy: boolean }) => {
    emptied?.(outcome);
    emptied = null;
  };
  const emptyOnThread = (wait: boolean) =>
    settings.whileWritesWait(
      () =>
        new Promise<{ busy: boolean }>((resolve) => {
          // A thread that never answers must not hold every write: after emptyingMs it counts as busy.
          const timer = setTimeout(() => settle({ busy: true }), emptyingMs);
          emptied = (outcome) => {
            clearTimeout(timer);
            resolve(outcome);
          };
          worker.postMessage({ truncate: wait });
        }),
    );
  const emptier = logEmptier(
    { sqlitePath: settings.sqlitePath, emptyLog: emptyOnThread },
    settings.logger,
    askAgain,
  );
  worker.on("exit", () => settle({ busy: true }));
  worker.on("message", (message: { copied: number } | { error: string } | { emptied: { busy: boolean } }) => {
    if ("emptied" in message) {
      settle(message.emptied);
      return;
    }
    if ("error" in message) {
      settings.logger.warn({ error: message.error }, "WAL checkpoint failed; retrying");
      return;
    }
    // Frames committed since the thread's pass would be copied by the emptying, on the serving
    // thread (an import's 16 MiB stalled every account for 150-300 ms): the thread copies them
    // first, unless the log has grown past its bound meanwhile.
    const size = walSize(settings.sqlitePath);
    if (size > message.copied && size < maxWalBytesBeforeEmptying) askAgain();
    else emptier.empty();
  });
  worker.on("error", (error) => settings.logger.error({ err: error }, "checkpoint thread failed"));
  await settings.execute("pragma wal_autocheckpoint = 0");
  return {
    emptySoon: askAgain,
    async stop() {
      stopped = true;
      await emptier.idle();
      // Checkpointing on commit again: the connection's last commits and its close fold the log in.
      await settings.execute("pragma wal_autocheckpoint = 1000");
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage("close");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await worker.terminate();
    },
  };
}
