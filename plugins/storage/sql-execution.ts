/**
 * The one place SQL runs outside MikroORM's entity managers: `Execute`, `RunTransaction` and
 * their two drivers. Statements come from the `sql` tag (sql-statement.ts) with real bound
 * parameters, each driver's placeholders written by construction. MikroORM's
 * `connection.execute` inlines every parameter into the SQL text, so each call re-parses a new
 * statement (64 KiB of content included) and cannot carry a U+0000 on SQLite. Here SQLite runs
 * cached prepared better-sqlite3 statements under Kysely's connection lock (the one MikroORM's
 * own queries and transactions take), a large transaction's on the writer thread's connection
 * (sqlite-writer.ts), and PostgreSQL sends `$n` parameters over the same pg pool.
 *
 * On SQLite a statement that only reads, outside a transaction, runs on a second connection
 * without that lock: WAL lets it read the last commit while a transaction is open on the first
 * one. An import of 16 MiB holds the writer for seconds; without this every request of every
 * account (an API key's lookup included) waited behind it.
 */
import { createHash } from "node:crypto";
import type { MikroORM } from "@mikro-orm/core";
import Database from "better-sqlite3";
import { sqliteReadPragmas } from "./connection-settings.ts";
import { postgresText, type Sql, sqliteText, statementOf } from "./sql-statement.ts";
import { type SqliteWriter, startSqliteWriter } from "./sqlite-writer.ts";

/** Runs a statement (a string: one without parameters) and returns its rows (none for a write). */
export type Execute = <Row = Record<string, unknown>>(statement: Sql | string) => Promise<Row[]>;
/**
 * Runs `work` in one transaction, its statements through the `Execute` it is given. `large`: it
 * writes much (an import, an ingest): on SQLite it runs on the writer thread (sqliteBoundSql).
 */
export type RunTransaction = <T>(
  work: (execute: Execute) => Promise<T>,
  options?: { large?: boolean },
) => Promise<T>;

export interface SqliteStatement {
  reader: boolean;
  /** The statement writes nothing (an `insert … returning` is a reader, not read-only). */
  readonly: boolean;
  all(parameters: unknown[]): unknown[];
  run(parameters: unknown[]): unknown;
}
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  readonly inTransaction: boolean;
}
export interface PgClient {
  query(query: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
export interface PgPool extends PgClient {
  connect(): Promise<PgClient & { release(error?: Error): void }>;
}
interface LockingClient {
  connection(): { execute<T>(work: () => Promise<T>): Promise<T> };
}
interface NativeConnection {
  getNativeClient(): Promise<unknown>;
  getClient(): LockingClient;
}

const selectPattern = /^\s*select\b/i;
// `pragma name = value`: a setting, not a read or a run (`wal_checkpoint(…)`).
const pragmaSetting = /^\s*pragma\s+([\w.]+)\s*=/i;

// Statement texts are few (the IN lists vary in length only); bounded anyway.
const cacheLimit = 2_000;

function bounded<T>(cache: Map<string, T>, key: string, create: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = create();
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/** Runs a statement through `database`'s cache of prepared statements: a reader's rows, or none. */
export function runPrepared(
  database: SqliteDatabase,
  statements: Map<string, SqliteStatement>,
  text: string,
  values: unknown[],
): unknown[] {
  const prepared = bounded(statements, text, () => database.prepare(text));
  if (prepared.reader) return prepared.all(values);
  prepared.run(values);
  return [];
}

function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}

/**
 * Runs `work` on one connection held for it, outside any transaction: for what needs a session
 * (a session-level advisory lock, a setting, `create index concurrently`). SQLite: `execute`.
 */
export type RunSession = <T>(work: (execute: Execute) => Promise<T>) => Promise<T>;

export interface BoundSql {
  execute: Execute;
  runTransaction: RunTransaction;
  runSession?: RunSession;
  /** Closes what it opened itself (SQLite's reading connection and writer thread). */
  close(): void | Promise<void>;
  /**
   * SQLite: copies what is left of the write-ahead log into the database and cuts the log to zero
   * (`wal_checkpoint(TRUNCATE)`), between the connection's transactions. Unless `wait`, it gives up
   * at once (`busy`) when a reader still uses the log, instead of the connection's busy timeout
   * sleeping on the serving thread until every search thread's read has ended.
   */
  emptyLog?(wait: boolean): Promise<{ busy: boolean }>;
  /**
   * SQLite: runs `work` while the connection's writes wait, between its transactions, with the
   * event loop free (another connection may empty the log meanwhile without failing a write).
   */
  whileWritesWait?<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Cached prepared statements on one better-sqlite3 connection; `locked` runs its work holding
 * whatever lock the connection's other users take (MikroORM's), or at once when it has none.
 * `reader`, a second connection to the same file, runs the read-only statements made outside a
 * transaction, without the lock. The writer, a connection on a thread of its own
 * (`startWriter`, sqlite-writer.ts), runs the large transactions, under the same lock: there
 * SQLite's own work (an import's B-tree inserts, its commit of up to 90 ms) does not hold the
 * serving thread. Small ones stay here: a statement on the writer costs two messages, and a
 * transaction holds the lock across each. The writer starts with the first large transaction (a
 * server that never imports keeps no thread for it), and again if it has ended; the pragmas set
 * through `execute` (`pragma name = value`) are set on it too, the latest of each name.
 */
export function sqliteBoundSql(
  database: SqliteDatabase,
  locked: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  reader?: SqliteDatabase,
  startWriter?: () => Promise<SqliteWriter>,
): BoundSql {
  const statements = new Map<string, SqliteStatement>();
  const readerStatements = new Map<string, SqliteStatement>();
  // Runs now: only call it while holding the connection lock.
  const run = ((input: Sql | string) => {
    const statement = statementOf(input);
    return Promise.resolve(
      runPrepared(database, statements, sqliteText(statement), statement.values.map(sqliteValue)),
    );
  }) as Execute;
  const here = {
    run,
    exec: async (text: string) => database.exec(text),
    get inTransaction() {
      return database.inTransaction;
    },
  };
  const pragmas = new Map<string, string>();
  let started: Promise<SqliteWriter> | undefined;
  let writer: SqliteWriter | undefined;
  const liveWriter = async (): Promise<SqliteWriter> => {
    if (writer !== undefined && !writer.ended) return writer;
    if (started === undefined) {
      started = (async () => {
        const next = await (startWriter as () => Promise<SqliteWriter>)();
        for (const pragma of pragmas.values()) await next.run(pragma, []);
        return next;
      })().finally(() => {
        started = undefined;
      });
    }
    writer = await started;
    return writer;
  };
  // A transaction's statements go to the writer it began on: one that ends meanwhile fails the
  // rest of them, never runs them on a new connection outside the transaction.
  const on = (writer: SqliteWriter) => ({
    run: ((input: Sql | string) => {
      const statement = statementOf(input);
      return writer.run(sqliteText(statement), statement.values.map(sqliteValue));
    }) as Execute,
    exec: (text: string) => writer.exec(text),
    get inTransaction() {
      return writer.inTransaction;
    },
  });
  const execute = ((input: Sql | string) => {
    const statement = statementOf(input);
    const text = sqliteText(statement);
    // Only a select: a pragma may be read-only and still be meant for the writing connection.
    const read =
      reader !== undefined && selectPattern.test(text)
        ? bounded(readerStatements, text, () => reader.prepare(text))
        : undefined;
    if (read?.readonly && read.reader) return Promise.resolve(read.all(statement.values.map(sqliteValue)));
    // A pragma's setting (the log's checkpointing, sqlite-checkpoints.ts) holds for both writing
    // connections.
    const pragma = startWriter && pragmaSetting.exec(text);
    if (pragma) {
      pragmas.set(pragma[1].toLowerCase(), text);
      return locked(async () => {
        if (writer !== undefined && !writer.ended) await writer.run(text, []);
        return run(statement);
      });
    }
    return locked(() => run(statement));
  }) as Execute;
  const busyTimeout = database.pragma("busy_timeout", { simple: true }) as number;
  return {
    execute,
    async close() {
      (reader as { close?: () => void } | undefined)?.close?.();
      await (await started?.catch(() => undefined))?.close();
      await writer?.close();
    },
    whileWritesWait: locked,
    emptyLog: (wait) =>
      locked(async () => {
        // One synchronous run: no other statement of this connection runs without its timeout.
        if (!wait) database.pragma("busy_timeout = 0");
        try {
          const [result] = database.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy?: number }>;
          return { busy: result?.busy === 1 };
        } finally {
          if (!wait) database.pragma(`busy_timeout = ${busyTimeout}`);
        }
      }),
    runTransaction: (work, options) =>
      locked(async () => {
        const connection = options?.large && startWriter ? on(await liveWriter()) : here;
        await connection.exec("begin");
        try {
          const result = await work(connection.run);
          await connection.exec("commit");
          return result;
        } catch (error) {
          // SQLite has already rolled back after some failures (SQLITE_FULL, SQLITE_IOERR); a
          // second rollback would throw and hide the error that says what happened.
          if (connection.inTransaction) await connection.exec("rollback");
          throw error;
        }
      }),
  };
}

/** `$n` parameters over a pg pool; a transaction holds one of its clients. */
export function postgresBoundSql(pool: PgPool): BoundSql {
  const texts = new Map<string, { name?: string; text: string }>();
  // Each text is a named statement, parsed once per connection instead of on every call (a
  // recall's statements took about 2 ms less), and planned once PostgreSQL finds a generic plan as
  // good as its own. A vector search (`<=>`) stays unnamed: the HNSW scan is planned for its own
  // vector and limit, never from a generic plan that could sort every vector instead.
  const prepared = (text: string) =>
    bounded(texts, text, () => {
      if (text.includes("<=>")) return { text };
      return { name: `cairn_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`, text };
    });
  const on = (client: PgClient): Execute =>
    (async (input: Sql | string) => {
      const statement = statementOf(input);
      const values = statement.values.map((value) => (value === undefined ? null : value));
      return (await client.query({ ...prepared(postgresText(statement)), values })).rows;
    }) as Execute;
  return {
    execute: on(pool),
    close() {},
    async runSession(work) {
      const client = await pool.connect();
      try {
        const result = await work(on(client));
        client.release();
        return result;
      } catch (error) {
        // Its locks and settings are not known to be undone: the connection is closed, not reused.
        client.release(error as Error);
        throw error;
      }
    },
    async runTransaction(work) {
      const client = await pool.connect();
      try {
        await client.query({ text: "begin", values: [] });
        const result = await work(on(client));
        await client.query({ text: "commit", values: [] });
        client.release();
        return result;
      } catch (error) {
        try {
          await client.query({ text: "rollback", values: [] });
          client.release();
        } catch (rollbackError) {
          // A broken connection must not go back into the pool.
          client.release(rollbackError as Error);
        }
        throw error;
      }
    },
  };
}

/**
 * The bound statements for an open MikroORM instance, on its own connection(s); on
 * SQLite, `sqlitePath` is the file a reading connection opens.
 */
export async function boundSql(
  orm: MikroORM,
  dialect: "sqlite" | "postgresql",
  sqlitePath?: string,
): Promise<BoundSql> {
  const connection = orm.em.getConnection() as unknown as NativeConnection;
  const native = await connection.getNativeClient();
  if (dialect === "postgresql") return postgresBoundSql(native as PgPool);
  const reader = sqlitePath === undefined ? undefined : new Database(sqlitePath, { fileMustExist: true });
  for (const pragma of sqliteReadPragmas) reader?.pragma(pragma);
  return sqliteBoundSql(
    native as SqliteDatabase,
    (work) => connection.getClient().connection().execute(work),
    reader as unknown as SqliteDatabase | undefined,
    sqlitePath === undefined ? undefined : () => startSqliteWriter(sqlitePath),
  );
}
