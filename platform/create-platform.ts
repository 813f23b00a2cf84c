/**
 * The composition root: the only place that reads `SVC_*` configuration to pick plugins
 * (storage driver, rate-limit store, sandbox runtime) and wires them into core's Platform.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  allOperations,
  type Clock,
  type Config,
  createDashboardTokens,
  createInlinePatternWork,
  createMemoryTokenBucketStore,
  createMemoryWriter,
  createToolRegistry,
  type Logger,
  type MemorySearch,
  type PasswordHasher,
  type Platform,
  type SandboxRuntime,
  silentLogger,
  systemClock,
} from "../core/index.ts";
import { createMemoryEmbedder } from "../core/memory/embedder.ts";
import { recallMemories } from "../core/memory/recall.ts";
import { createPluginHost } from "../core/plugins/plugin-host.ts";
import { pluginOperations } from "../core/plugins/plugin-operations.ts";
import type { ImageBuilder } from "../core/ports/image-builder.ts";
import { createSecretCipher } from "../core/sandboxes/broker/secrets.ts";
import { createImageBuilds } from "../core/sandboxes/images/images.ts";
import { createLanguageServers } from "../core/sandboxes/lsp/language-servers.ts";
import { createEmbeddingProvider } from "../plugins/embeddings/index.ts";
import { createHttpEgress } from "../plugins/http-egress/create-http-egress.ts";
import { createLocalImageBuilder } from "../plugins/image-builder-local/index.ts";
import { createArgon2Hasher } from "../plugins/passwords/create-argon2-hasher.ts";
import {
  createMemoryLoginGuard,
  createPostgresLoginGuard,
  createRedisLoginGuard,
} from "../plugins/rate-limit/create-login-guard.ts";
import { createPostgresTokenBucketStore } from "../plugins/rate-limit/create-postgres-token-bucket-store.ts";
import { createRedisTokenBucketStore } from "../plugins/rate-limit/create-redis-token-bucket-store.ts";
import { connectRedis } from "../plugins/rate-limit/redis-connection.ts";
import { createLocalSandboxRuntime } from "../plugins/sandbox-local/index.ts";
import { isPostgresUrl } from "../plugins/storage/connection-settings.ts";
import { createStorage, type SqlStorage } from "../plugins/storage/create-storage.ts";
import { vacuumAfterBursts } from "../plugins/storage/postgres-vacuum.ts";
import { loadPlugins } from "./load-plugins.ts";
import { createMemorySearchThreads } from "./memory-search-threads.ts";
import { createPatternThreads } from "./pattern-threads.ts";
import { logEmptier, startSqliteCheckpoints } from "./sqlite-checkpoints.ts";

export interface PlatformOverrides {
  clock?: Clock;
  logger?: Logger;
  passwords?: PasswordHasher;
  sandboxRuntime?: SandboxRuntime;
  imageBuilder?: ImageBuilder;
}

export interface NodePlatform extends Platform {
  readonly storage: SqlStorage;
}

/**
 * A server secret: the configured value, or in development one generated once into the data dir
 * (mode 0600). Production refuses to start without a configured value of at least 32 bytes.
 */
async function serverSecret(
  config: Config,
  name: "SVC_JWT_SECRET" | "SVC_SECRETS_KEY",
  file: string,
): Promise<string> {
  const configured = config[name];
  if (configured) {
    if (config.SVC_ENV === "production" && new TextEncoder().encode(configured).length < 32) {
      throw new Error(`${name} must be at least 32 bytes in production`);
    }
    return configured;
  }
  if (config.SVC_ENV === "production") throw new Error(`${name} is required in production`);
  const path = join(config.SVC_DATA_DIR, file);
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
    await writeFile(path, secret, { mode: 0o600, flag: "wx" }).catch(() => {});
    return (await readFile(path, "utf8")).trim();
  }
}

async function createSandboxRuntime(config: Config, logger: Logger): Promise<SandboxRuntime> {
  if (config.SVC_SANDBOX_RUNTIME === "kubernetes") {
    // Loaded only when chosen: the Kubernetes client is large and most deployments do not use it.
    const { createKubernetesSandboxRuntime } = await import("../plugins/sandbox-kubernetes/index.ts");
    return createKubernetesSandboxRuntime({
      namespace: config.SVC_KUBE_NAMESPACE,
      image: config.SVC_KUBE_SANDBOX_IMAGE,
      allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS,
      logger,
    });
  }
  return createLocalSandboxRuntime({
    dataDir: config.SVC_DATA_DIR,
    logger,
    bubblewrapPath: config.SVC_BUBBLEWRAP_PATH,
    userIds: config.SVC_SANDBOX_UID_RANGE,
    egress: { allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS },
  });
}

/** Where custom images are built: a Job per build on Kubernetes, an isolated local builder otherwise. */
async function createImageBuilder(config: Config, logger: Logger): Promise<ImageBuilder> {
  if (config.SVC_SANDBOX_RUNTIME === "kubernetes") {
    const { createKubernetesImageBuilder } = await import("../plugins/sandbox-kubernetes/index.ts");
    return createKubernetesImageBuilder({
      namespace: config.SVC_KUBE_NAMESPACE,
      repository: config.SVC_KUBE_IMAGE_REPOSITORY,
      builderImage: config.SVC_KUBE_IMAGE_BUILDER_IMAGE,
      timeoutSeconds: config.SVC_IMAGE_BUILD_TIMEOUT_SECONDS,
    });
  }
  return createLocalImageBuilder({
    dataDir: config.SVC_DATA_DIR,
    registryHosts: config.SVC_IMAGE_REGISTRY_HOSTS,
    allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS,
    timeoutSeconds: config.SVC_IMAGE_BUILD_TIMEOUT_SECONDS,
    logger,
  });
}

/** Where token buckets and failed-login counts live: this process, or PostgreSQL or Redis (shared by replicas). */
async function createRateLimits(config: Config, storage: SqlStorage, logger: Logger) {
  if (config.SVC_RATE_LIMIT_STORE === "postgres") {
    if (!isPostgresUrl(config.SVC_DATABASE_URL))
      throw new Error("SVC_RATE_LIMIT_STORE=postgres needs SVC_DATABASE_URL to point at PostgreSQL");
    return {
      buckets: createPostgresTokenBucketStore(storage.execute),
      loginGuard: await createPostgresLoginGuard(config.SVC_DATABASE_URL as string),
    };
  }
  if (config.SVC_RATE_LIMIT_STORE === "redis") {
    if (!config.SVC_REDIS_URL) throw new Error("SVC_RATE_LIMIT_STORE=redis needs SVC_REDIS_URL");
    const redis = await connectRedis(config.SVC_REDIS_URL, logger);
    return { buckets: createRedisTokenBucketStore(redis), loginGuard: createRedisLoginGuard(redis) };
  }
  return { buckets: createMemoryTokenBucketStore(), loginGuard: createMemoryLoginGuard() };
}

export async function createPlatform(
  config: Config,
  overrides: PlatformOverrides = {},
): Promise<NodePlatform> {
  const logger = overrides.logger ?? silentLogger;
  // Plugins first: one that cannot load stops the start before anything opens (docs/plugins.md).
  const loadedPlugins = await loadPlugins(config.SVC_PLUGINS);
  const tools = createToolRegistry(pluginOperations(loadedPlugins, allOperations, config));
  // Where memory content goes for embeddings is decided (and a destination outside the deployment
  // without SVC_MEMORY_EMBEDDING_PROVIDER refused) before anything starts
  // (docs/configuration.md#embeddings-semantic-search); null when semantic search is off.
  const embeddingProvider = createEmbeddingProvider(config);
  await mkdir(config.SVC_DATA_DIR, { recursive: true, mode: 0o700 });
  const sqlitePath = join(config.SVC_DATA_DIR, "cairn.db");
  const openedStorage = await createStorage({ databaseUrl: config.SVC_DATABASE_URL, sqlitePath, logger });
  const clock = overrides.clock ?? systemClock;
  const plugins = createPluginHost({
    plugins: loadedPlugins.map((loaded) => loaded.plugin),
    storage: openedStorage,
    clock,
    logger,
    delaySeconds: config.SVC_PLUGIN_EVENT_DELAY_SECONDS,
  });
  // Whatever ends a sandbox (destroy, the reaper, start-up reconciliation) emits sandbox.destroyed.
  const storage: SqlStorage = {
    ...openedStorage,
    sandboxSessions: plugins.emittingOnEnd(openedStorage.sandboxSessions),
  };
  const { buckets, loginGuard } = await createRateLimits(config, storage, logger);
  const languageServers = createLanguageServers({ logger });
  // Whatever ends a sandbox (destroy, the reaper, reconciliation, shutdown) ends its language servers.
  const sandboxRuntime = languageServers.endingWithSessions(
    overrides.sandboxRuntime ?? (await createSandboxRuntime(config, logger)),
  );
  // The Node server (search threads allowed) checkpoints SQLite's log on a thread of its own.
  const checkpoints =
    storage.dialect === "sqlite" && config.SVC_MEMORY_SEARCH_THREADS > 0
      ? await startSqliteCheckpoints({ sqlitePath, execute: (sql) => storage.execute(sql), logger })
      : null;
  // A forget leaves the memory's old pages in SQLite's log: it is emptied just after (by the
  // checkpoint thread's next pass, or at once where the serving connection checkpoints itself).
  const emptyLogSoon =
    checkpoints !== null
      ? checkpoints.emptySoon
      : storage.dialect === "sqlite"
        ? logEmptier((sql) => storage.execute(sql), logger).empty
        : undefined;
  // PostgreSQL: the memory tables vacuumed after a burst of writes (postgres-vacuum.ts says why).
  const vacuum =
    storage.dialect === "postgresql"
      ? vacuumAfterBursts({ execute: (sql) => storage.execute(sql), logger })
      : null;
  const memoryEmbedder = embeddingProvider
    ? createMemoryEmbedder({ memories: storage.memories, provider: embeddingProvider, logger, clock })
    : null;
  const memoryWriter = createMemoryWriter({
    memories: storage.memories,
    logger,
    afterWrite: () => memoryEmbedder?.wake(),
    afterForget: emptyLogSoon,
    afterLink: vacuum?.linked,
    commitsInProcess: storage.dialect === "sqlite",
    // Writes of remember and ingest (not imports) are memory.remembered events, queued before
    // their link job leaves the queue, so a crash in between queues them again.
    beforeLink: plugins.subscribes("memory.remembered")
      ? async (accountId, jobs) => {
          const ids = jobs.filter((job) => job.batchId === null).map((job) => job.memoryId);
          if (ids.length > 0)
            await plugins.remembered(accountId, await storage.memories.getAnyMany(accountId, ids));
        }
      : undefined,
  });
  const memorySearch: MemorySearch =
    config.SVC_MEMORY_SEARCH_THREADS > 0
      ? createMemorySearchThreads({
          threads: config.SVC_MEMORY_SEARCH_THREADS,
          databaseUrl: config.SVC_DATABASE_URL,
          sqlitePath,
          logger,
        })
      : {
          recall: (accountId, request) => recallMemories(storage.memories, accountId, request),
          close: async () => {},
        };
  const patternWork =
    config.SVC_PATTERN_THREADS > 0
      ? createPatternThreads({ threads: config.SVC_PATTERN_THREADS, logger })
      : createInlinePatternWork();
  const imageBuilds = createImageBuilds({
    images: storage.images,
    builder: overrides.imageBuilder ?? (await createImageBuilder(config, logger)),
    logger,
    now: () => clock.now(),
  });
  // Builds a stopped or crashed server left unfinished start again (docs/sandboxes.md#images).
  if (config.SVC_IMAGE_BUILDER_ENABLED) await imageBuilds.resume();
  // Relation detection a previous run queued but did not finish (a crash): linked before serving.
  await memoryWriter.linkAll();
  // Memories written while semantic search was off, or before a crash, get their vectors now.
  memoryEmbedder?.wake();
  const platform: NodePlatform = {
    config,
    tools,
    plugins,
    clock,
    logger,
    storage,
    memoryWriter,
    memorySearch,
    memoryEmbedder,
    patternWork,
    passwords: overrides.passwords ?? createArgon2Hasher(),
    dashboardTokens: createDashboardTokens({
      secret: await serverSecret(config, "SVC_JWT_SECRET", "jwt-secret"),
      ttlMinutes: config.SVC_ACCESS_TOKEN_TTL_MINUTES,
    }),
    rateLimits: buckets,
    loginGuard,
    sandboxRuntime,
    egress: createHttpEgress(),
    secretCipher: createSecretCipher(await serverSecret(config, "SVC_SECRETS_KEY", "secrets-key")),
    languageServers,
    imageBuilds,
    async close() {
      await plugins.close();
      await imageBuilds.close();
      await memoryWriter.close();
      await memoryEmbedder?.close();
      await memorySearch.close();
      await patternWork.close();
      await sandboxRuntime.close();
      await loginGuard.close();
      await checkpoints?.stop();
      await vacuum?.stop();
      await storage.close();
    },
  };
  // Events a previous run left undelivered (a crash) go out now, then each as it is enqueued.
  plugins.start(platform);
  return platform;
}
