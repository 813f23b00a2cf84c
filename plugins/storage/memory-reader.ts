/**
 * A memory store on a connection of its own, for reading: what a search thread ranks over. It
 * opens the database the server's storage opened (and migrated) without running anything at
 * open; writes through it are not expected. SQLite: one better-sqlite3 connection (WAL: it reads
 * every committed write, concurrently with the server's writer); PostgreSQL: a small pool. The
 * statements go through the same execution module as the server's store (sql-execution.ts).
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { MemoryStore } from "../../core/index.ts";
import { isPostgresUrl, sqliteSearchPragmas } from "./connection-settings.ts";
import { createSqlMemoryStore } from "./memory-store.ts";
import { type PgPool, postgresBoundSql, type SqliteDatabase, sqliteBoundSql } from "./sql-execution.ts";

export interface MemoryReaderSettings {
  databaseUrl?: string;
  sqlitePath: string;
}

export interface MemoryReader {
  memories: MemoryStore;
  close(): Promise<void>;
}

export function openMemoryReader(settings: MemoryReaderSettings): MemoryReader {
  if (isPostgresUrl(settings.databaseUrl)) {
    const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 2 });
    // An idle connection the database ends (a restart) raises an error on the pool: without a
    // listener it would end the thread. The next query on a new connection reports the outage.
    pool.on("error", () => {});
    const { execute, runTransaction } = postgresBoundSql(pool as unknown as PgPool);
    return { memories: createSqlMemoryStore("postgresql", execute, runTransaction), close: () => pool.end() };
  }
  const database = new Database(settings.sqlitePath, { fileMustExist: true });
  for (const pragma of sqliteSearchPragmas) database.pragma(pragma);
  const { execute, runTransaction } = sqliteBoundSql(database as unknown as SqliteDatabase);
  return {
    memories: createSqlMemoryStore("sqlite", execute, runTransaction),
    close: async () => {
      database.close();
    },
  };
}
