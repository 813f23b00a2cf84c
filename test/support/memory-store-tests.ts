/**
 * Store-level memory tests: a test platform on `target` for the file's tests, its memory store
 * handed to them, closed after them.
 */
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import type { MemoryStore } from "../../core/index.ts";
import { createSqlMemoryStore } from "../../plugins/storage/memory-store.ts";
import { type Execute, type PgPool, postgresBoundSql } from "../../plugins/storage/sql-execution.ts";
import { type Sql, sqliteText, statementOf } from "../../plugins/storage/sql-statement.ts";
import {
  createTestDatabase,
  createTestPlatform,
  type StorageTarget,
  type TestPlatform,
} from "./platforms.ts";

export function memoryStoreUnderTest(target: StorageTarget): { test: TestPlatform; memories: MemoryStore } {
  const store = {} as { test: TestPlatform; memories: MemoryStore };
  beforeAll(async () => {
    store.test = await createTestPlatform(target, {
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    });
    store.memories = store.test.platform.storage.memories;
  });
  afterAll(async () => {
    await store.test?.close();
  });
  return store;
}

/**
 * PostgreSQL: a memory store on `databaseUrl` that records every statement it runs (its
 * transactions' too), with the pool and bound SQL under it; the caller ends the pool. Each
 * statement is kept as it ran (`statement`, which nests into another) and as text with a `?` at
 * each value (`sql`), beside its values.
 */
export function recordingPostgresStore(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const bound = postgresBoundSql(pool as unknown as PgPool);
  const statements: Array<{ sql: string; parameters: readonly unknown[]; statement: Sql }> = [];
  const recorded = (execute: Execute) =>
    ((input: Sql | string) => {
      const statement = statementOf(input);
      statements.push({ sql: sqliteText(statement), parameters: statement.values, statement });
      return execute(statement);
    }) as Execute;
  const recording = createSqlMemoryStore("postgresql", recorded(bound.execute), (work) =>
    bound.runTransaction((execute) => work(recorded(execute))),
  );
  return { pool, bound, statements, recording };
}

/**
 * PostgreSQL: `work` on a database of its own (so `analyze` and plans see its rows alone), with a
 * platform on it and a recording store (`recordingPostgresStore`); all three gone after it.
 */
export async function withOwnPostgresStore(
  work: (own: TestPlatform, store: ReturnType<typeof recordingPostgresStore>) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase();
  const own = await createTestPlatform("postgresql", {
    databaseUrl: database.url,
    environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
  });
  const store = recordingPostgresStore(database.url);
  try {
    await work(own, store);
  } finally {
    await store.pool.end();
    await own.close();
    await database.drop();
  }
}
