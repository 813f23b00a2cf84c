/**
 * Test platforms on real databases: a fresh SQLite file per platform, or a fresh PostgreSQL
 * database (created from SVC_TEST_DATABASE_URL, dropped at close). Suites that run "on both
 * stores" loop over `storageTargets`; a missing PostgreSQL is a failure, never a skip.
 *
 * With CAIRN_TEST_EMBEDDINGS=on (the vitest project "memory (embeddings)") every platform runs
 * semantic search against the project's shared model server, and recall first drains the
 * embedder, and so does a metrics request, so a read sees its own writes' vectors (production
 * never waits for them).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  type Clock,
  type Config,
  createCaller,
  loadConfig,
  type Platform,
  type SandboxRuntime,
  silentLogger,
} from "../../core/index.ts";
import type { MemoryEmbedder } from "../../core/memory/embedder.ts";
import type { ImageBuilder } from "../../core/ports/image-builder.ts";
import { type CairnApp, createCairnApp } from "../../platform/create-cairn-app.ts";
import { createPlatform } from "../../platform/create-platform.ts";
import { createArgon2Hasher } from "../../plugins/passwords/create-argon2-hasher.ts";
import type { SqlStorage } from "../../plugins/storage/create-storage.ts";

export type StorageTarget = "sqlite" | "postgresql";
export const storageTargets: StorageTarget[] = ["sqlite", "postgresql"];

// Light argon2 settings keep suites fast; the production parameters have their own test.
export const fastPasswords = createArgon2Hasher({ memoryCost: 1024, timeCost: 1 });

/** The memory suite's second mode: semantic search on, against a real model server. */
export const embeddingsMode = process.env.CAIRN_TEST_EMBEDDINGS === "on";

/** The settings that turn semantic search on (none outside the embeddings mode), for platforms and servers. */
export async function embeddingsEnvironment(): Promise<Record<string, string>> {
  if (!embeddingsMode) return {};
  // Imported here, not at the top: the benchmarks load this file outside vitest.
  const { inject } = await import("vitest");
  return {
    SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
    SVC_MEMORY_EMBEDDING_BASE_URL: `${inject("modelServerUrl")}/v1`,
  };
}

/**
 * The embedder with a query that first embeds every pending write. Writes only wake the
 * background loop, so without this a recall right after a remember would race it; draining in the
 * test harness keeps recall's production behaviour (never waiting) and makes results
 * deterministic. A drain that fails (the model server down) leaves the query to warn as usual.
 */
function settledBeforeQueries(embedder: MemoryEmbedder): MemoryEmbedder {
  return {
    ...embedder,
    async embedQuery(text, signal, accountId) {
      await embedder.drain().catch(() => {});
      return embedder.embedQuery(text, signal, accountId);
    },
  };
}

export function testDatabaseUrl(): string {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      "SVC_TEST_DATABASE_URL is not set: run `npm test` (its set-up step starts PostgreSQL) or point it at a PostgreSQL 15 server with pgvector",
    );
  }
  return url;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new empty PostgreSQL database with pgvector; returns its URL and a dropper. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cairn_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await withAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  const database = new pg.Client({ connectionString: url.toString() });
  await database.connect();
  await database.query("create extension if not exists vector");
  await database.end();
  return {
    url: url.toString(),
    drop: () =>
      withAdmin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}

export interface TestPlatformOptions {
  clock?: Clock;
  environment?: Record<string, string>;
  /** Reuse an existing database (for two replicas on one database). */
  databaseUrl?: string;
  /** Reuse an existing data directory (a restart on the same disk); close still removes it. */
  dataDir?: string;
  logger?: typeof silentLogger;
  /** Another sandbox runtime than the configured one (the Kubernetes runtime against msw). */
  sandboxRuntime?: SandboxRuntime;
  /** Another image builder than the configured one (a controlled one, or Kubernetes against msw). */
  imageBuilder?: ImageBuilder;
}

/** A platform on the built-in SQL storage, whose connection and ORM tests reach past the port. */
export type SqlPlatform = Platform & { readonly storage: SqlStorage };

/** `platform`, checked to be on the built-in SQL storage (the storage plugin's). */
export function sqlPlatform(platform: Platform): SqlPlatform {
  const storage = platform.storage as Partial<SqlStorage>;
  if (typeof storage.execute !== "function" || storage.orm === undefined)
    throw new Error("this platform's storage is not the built-in SQL storage");
  return platform as SqlPlatform;
}

export interface TestPlatform {
  platform: SqlPlatform;
  config: Config;
  app: CairnApp["app"];
  call: ReturnType<typeof createCaller>;
  databaseUrl: string | undefined;
  dataDir: string;
  /** A fetch against the app with a fixed client IP. */
  request(
    path: string,
    init?: RequestInit & { json?: unknown; credential?: string; ip?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function createTestPlatform(
  target: StorageTarget,
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "cairn-test-")));
  const database = target === "postgresql" && !options.databaseUrl ? await createTestDatabase() : undefined;
  const databaseUrl = target === "postgresql" ? (options.databaseUrl ?? database?.url) : undefined;
  const start = async () => {
    const config = loadConfig({
      SVC_DATA_DIR: dataDir,
      SVC_JWT_SECRET: "test-secret-test-secret-test-secret-0123456789",
      ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}),
      // Ranking in process: a pair of search threads per test platform costs more than it saves
      // (the servers the end-to-end tests start rank on threads).
      SVC_MEMORY_SEARCH_THREADS: "0",
      ...(await embeddingsEnvironment()),
      ...options.environment,
    });
    const created = await createPlatform(config, {
      clock: options.clock,
      logger: options.logger ?? silentLogger,
      passwords: fastPasswords,
      sandboxRuntime: options.sandboxRuntime,
      imageBuilder: options.imageBuilder,
    });
    return { config, created };
  };
  // A platform that fails to start (the tests of a refused configuration) leaves nothing behind.
  const { config, created } = await start().catch(async (error: unknown) => {
    await database?.drop();
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  const platform = sqlPlatform(
    embeddingsMode && created.memoryEmbedder
      ? { ...created, memoryEmbedder: settledBeforeQueries(created.memoryEmbedder) }
      : created,
  );
  const cairn = createCairnApp(platform, {
    clientIp: (request) => request.headers.get("x-test-client-ip") ?? "203.0.113.7",
  });
  const { app } = cairn;
  return {
    platform,
    config,
    app,
    call: createCaller(platform),
    databaseUrl,
    dataDir,
    async request(path, init = {}) {
      // The embedding coverage a test reads counts its own writes, and a search starts after the
      // corrections their vectors bring, not beside them (see settledBeforeQueries).
      if (embeddingsMode && (path.startsWith("/v1/memory/metrics") || path.startsWith("/v1/memory/search")))
        await platform.memoryEmbedder?.drain().catch(() => {});
      const headers = new Headers(init.headers);
      if (init.credential) headers.set("Authorization", `Bearer ${init.credential}`);
      if (init.ip) headers.set("x-test-client-ip", init.ip);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers.set("content-type", "application/json");
      }
      return app.request(path, { ...init, headers, body });
    },
    async close() {
      await cairn.close();
      await platform.close();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs up a fresh account and creates an API key; returns both credentials. */
export function createAccountWithKey(test: TestPlatform, email = `user-${crypto.randomUUID()}@example.com`) {
  return accountWithKey(test, "/v1/auth/signup", 201, email);
}

/** Logs in to an account that exists (a database kept from an earlier run) and creates an API key. */
export function logInWithKey(test: TestPlatform, email: string) {
  return accountWithKey(test, "/v1/auth/login", 200, email);
}

async function accountWithKey(test: TestPlatform, route: string, status: number, email: string) {
  const answer = await test.request(route, {
    method: "POST",
    json: { email, password: "correct horse battery" },
  });
  if (answer.status !== status) throw new Error(`${route} failed: ${answer.status} ${await answer.text()}`);
  const { access_token: token, account } = (await answer.json()) as {
    access_token: string;
    account: { id: string };
  };
  const created = await test.request("/v1/api-keys", {
    method: "POST",
    json: { name: "test" },
    credential: token,
  });
  const key = (await created.json()) as { id: string; key: string };
  return { email, token, accountId: account.id, key: key.key, keyId: key.id };
}
