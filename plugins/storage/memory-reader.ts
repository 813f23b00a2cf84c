/**
 * A memory store on a connection of its own, for reading: what a search thread ranks over. It
 * opens the database the server's storage opened (and migrated) without running anything at
 * open; writes through it are not expected. SQLite: one better-sqlite3 connection (WAL: it reads
 * every committed write, concurrently with the server's writer); PostgreSQL: a small pool.
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { MemoryStore } from "../../core/index.ts";
import { isPostgresUrl } from "./create-storage.ts";
import { createSqlMemoryStore, type Execute, type RunTransaction } from "./memory-store.ts";

export interface MemoryReaderSettings {
  databaseUrl?: string;
  sqlitePath: string;
}

export interface MemoryReader {
  memories: MemoryStore;
  close(): Promise<void>;
}

function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}

export function openMemoryReader(settings: MemoryReaderSettings): MemoryReader {
  if (isPostgresUrl(settings.databaseUrl)) {
    const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 2 });
    const numbered = new Map<string, string>();
    const on =
      (client: pg.Pool | pg.PoolClient): Execute =>
      async <Row>(sql: string, parameters: unknown[] = []) => {
        let text = numbered.get(sql);
        if (text === undefined) {
          let index = 0;
          text = sql.replace(/\?/g, () => `$${++index}`);
          if (numbered.size >= 2_000) numbered.clear();
          numbered.set(sql, text);
        }
        const values = parameters.map((value) => (value === undefined ? null : value));
        return (await client.query({ text, values })).rows as Row[];
      };
    const runTransaction: RunTransaction = async (work) => {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await work(on(client));
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    };
    return {
      memories: createSqlMemoryStore("postgresql", on(pool), runTransaction),
      close: () => pool.end(),
    };
  }
  const database = new Database(settings.sqlitePath, { fileMustExist: true });
  for (const pragma of ["busy_timeout = 5000", "cache_size = -65536", "mmap_size = 268435456"])
    database.pragma(pragma);
  const statements = new Map<string, Database.Statement>();
  const execute = (<Row>(sql: string, parameters: unknown[] = []) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (statements.size >= 2_000) statements.clear();
      statements.set(sql, statement);
    }
    const values = parameters.map(sqliteValue);
    if (statement.reader) return Promise.resolve(statement.all(values) as Row[]);
    statement.run(values);
    return Promise.resolve([] as Row[]);
  }) as Execute;
  const runTransaction: RunTransaction = async (work) => {
    database.exec("begin");
    try {
      const result = await work(execute);
      database.exec("commit");
      return result;
    } catch (error) {
      database.exec("rollback");
      throw error;
    }
  };
  return {
    memories: createSqlMemoryStore("sqlite", execute, runTransaction),
    close: async () => {
      database.close();
    },
  };
}
