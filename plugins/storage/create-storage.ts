/**
 * The storage plugin: MikroORM 7 over SQLite (better-sqlite3, the embedded default) or
 * PostgreSQL, chosen by the database URL. Runs the migrations at open and returns the
 * repositories of core's storage port (README.md: which tables use which access style).
 */
import type { EntityManager, MikroORM } from "@mikro-orm/core";
import { Migrator } from "@mikro-orm/migrations";
import type { Logger, Storage } from "../../core/index.ts";
import { cacheApiKeys } from "./api-key-cache.ts";
import { isPostgresUrl, sqliteServingPragmas } from "./connection-settings.ts";
import { entities } from "./entities.ts";
import { createIdempotencyStore } from "./idempotency-store.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import { createSqlMemoryStore, type SqlMemoryStore } from "./memory-store.ts";
import { withMigrationLock } from "./migration-lock.ts";
import { type Dialect, migrationsFor } from "./migrations/index.ts";
import { createOAuthRepository } from "./oauth-repository.ts";
import {
  createPluginEventQueue,
  createPluginStoreRepository,
  createSandboxActivityLog,
} from "./plugin-repositories.ts";
import { createPreviewLinkRepository } from "./preview-link-repository.ts";
import { createAccountRepository, createApiKeyRepository } from "./repositories.ts";
import {
  createAllowlistRepository,
  createSandboxSessionRepository,
  createSecretRepository,
  createUsageRepository,
} from "./sandbox-repositories.ts";
import {
  createImageRepository,
  createMcpConnectionRepository,
  createVolumeRepository,
} from "./sandbox-resource-repositories.ts";
import { createSnapshotRepository } from "./snapshot-repository.ts";
import { boundSql, type Execute } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

export interface StorageSettings {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite at `sqlitePath`. */
  databaseUrl?: string;
  sqlitePath: string;
  logger: Logger;
}

export interface SqlStorage extends Storage {
  readonly orm: MikroORM;
  readonly memories: SqlMemoryStore;
  /** A bound statement (`sql` tag, sql-statement.ts), or a string without parameters. */
  execute: Execute;
  /** SQLite only: empties the write-ahead log (sql-execution.ts). */
  emptyLog?(wait: boolean): Promise<{ busy: boolean }>;
  /** SQLite only: runs work while the serving connection's writes wait (sql-execution.ts). */
  whileWritesWait?<T>(work: () => Promise<T>): Promise<T>;
}

async function openOrm(settings: StorageSettings): Promise<{ orm: MikroORM; dialect: Dialect }> {
  const common = { entities, extensions: [Migrator], debug: false, allowGlobalContext: false };
  if (isPostgresUrl(settings.databaseUrl)) {
    const { MikroORM } = await import("@mikro-orm/postgresql");
    const orm = new MikroORM({
      ...common,
      clientUrl: settings.databaseUrl,
      pool: { min: 0, max: 10 },
      migrations: { migrationsList: migrationsFor("postgresql"), silent: true, snapshot: false },
    });
    return { orm, dialect: "postgresql" };
  }
  const { MikroORM } = await import("@mikro-orm/sqlite");
  const orm = new MikroORM({
    ...common,
    dbName: settings.sqlitePath,
    migrations: { migrationsList: migrationsFor("sqlite"), silent: true, snapshot: false },
  });
  return { orm, dialect: "sqlite" };
}

export async function createStorage(settings: StorageSettings): Promise<SqlStorage> {
  const { orm, dialect } = await openOrm(settings);
  const connection = orm.em.getConnection();
  if (dialect === "sqlite") {
    for (const pragma of sqliteServingPragmas) await connection.execute(`pragma ${pragma}`);
  }
  if (dialect === "postgresql")
    await withMigrationLock(settings.databaseUrl as string, () => orm.migrator.up());
  else await orm.migrator.up();
  settings.logger.info({ dialect }, "storage ready");
  const fork = (): EntityManager => orm.em.fork();
  // Every table family but sandbox sessions goes through bound statements (sql-execution.ts):
  // real bound parameters, cached prepared statements; MikroORM's entity manager serves the
  // sessions (README.md).
  const bound = await boundSql(orm, dialect, dialect === "sqlite" ? settings.sqlitePath : undefined);
  const { execute, runTransaction, runSession } = bound;
  if (dialect === "postgresql") {
    // A pooled idle connection the database ends (a restart) is reported on the pool; unheard, that
    // event would end the process. Queries meanwhile fail as 503s, and the next one reconnects.
    const native = (connection as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient();
    ((await native) as { on(event: "error", listener: (error: Error) => void): void }).on("error", (error) =>
      settings.logger.warn({ reason: error.message }, "database connection lost"),
    );
  }
  const memories = createSqlMemoryStore(dialect, execute, runTransaction, runSession);
  const indexed = await memories.indexUnposted();
  if (indexed > 0) settings.logger.info({ indexed }, "memories indexed for search");
  // SQLite answers a key's lookup in process; PostgreSQL's round trip is worth keeping keys for.
  const keys = createApiKeyRepository(execute, dialect);
  const cachedKeys =
    dialect === "postgresql"
      ? cacheApiKeys(keys, { databaseUrl: settings.databaseUrl as string, logger: settings.logger })
      : undefined;
  return {
    dialect,
    orm,
    accounts: createAccountRepository(execute, dialect),
    apiKeys: cachedKeys ?? keys,
    oauth: createOAuthRepository(execute, runTransaction, dialect),
    previewLinks: createPreviewLinkRepository(execute, dialect),
    usage: createUsageRepository(fork),
    idempotency: createIdempotencyStore(execute, dialect),
    memories,
    sandboxSessions: createSandboxSessionRepository(fork, dialect),
    allowlists: createAllowlistRepository(execute, dialect),
    secrets: createSecretRepository(execute, runTransaction, dialect),
    volumes: createVolumeRepository(execute, runTransaction, dialect),
    snapshots: createSnapshotRepository(execute, runTransaction, dialect),
    mcpConnections: createMcpConnectionRepository(execute, runTransaction, dialect),
    images: createImageRepository(execute, runTransaction, dialect),
    pluginStore: createPluginStoreRepository(execute, runTransaction, dialect),
    pluginEvents: createPluginEventQueue(execute, dialect),
    sandboxActivity: createSandboxActivityLog(execute, runTransaction, dialect),
    async runExclusive(job, work) {
      if (dialect === "sqlite") {
        await work();
        return true;
      }
      // A transaction-scoped advisory lock: released when the job's transaction ends, even on a crash.
      return runTransaction(async (run) => {
        const [row] = await run<{ locked: boolean }>(
          sql`select pg_try_advisory_xact_lock(hashtext(${`cairn:${job}`})) as locked`,
        );
        if (!row.locked) return false;
        await work();
        return true;
      });
    },
    execute,
    ...(bound.emptyLog && { emptyLog: bound.emptyLog }),
    ...(bound.whileWritesWait && { whileWritesWait: bound.whileWritesWait }),
    async gauges(now) {
      const time = sqlTimestamp(dialect)(now);
      const [sandboxes] = await execute<{ total: number | string }>(
        sql`select count(*) as total from sandbox_sessions where status = 'active' and expires_at > ${time}`,
      );
      const [memories] = await execute<{ total: number | string }>("select count(*) as total from memories");
      const [queued] = await execute<{ total: number | string }>(
        "select count(*) as total from memory_link_jobs",
      );
      return {
        activeSandboxes: Number(sandboxes.total),
        memoriesStored: Number(memories.total),
        memoryLinkJobsQueued: Number(queued.total),
      };
    },
    async ping() {
      try {
        await connection.execute("select 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await cachedKeys?.close();
      await orm.close(true);
      await bound.close();
    },
  };
}
