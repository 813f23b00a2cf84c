/**
 * The composition root: the built-in plugins, then SVC_PLUGINS; each port from the last plugin
 * offering the name the configuration uses (pick-ports.ts); core's services wired over them into
 * the Platform.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  allOperations,
  type Clock,
  type Config,
  createDashboardTokens,
  createInlinePatternWork,
  createInlineRelationDetection,
  createMemoryWriter,
  createToolRegistry,
  type Logger,
  type MemorySearch,
  type PasswordHasher,
  type Platform,
  type PortSetup,
  type SandboxRuntime,
  silentLogger,
  systemClock,
} from "../core/index.ts";
import { createMemoryEmbedder } from "../core/memory/embedder.ts";
import { createCorrectionLinker } from "../core/memory/link-corrections.ts";
import { recallMemories } from "../core/memory/recall.ts";
import { createPluginHost } from "../core/plugins/plugin-host.ts";
import { pluginOperations } from "../core/plugins/plugin-operations.ts";
import type { EmbeddingProvider } from "../core/ports/embeddings.ts";
import type { ImageBuilder } from "../core/ports/image-builder.ts";
import { createSecretCipher } from "../core/sandboxes/broker/secrets.ts";
import { createImageBuilds } from "../core/sandboxes/images/images.ts";
import { createLanguageServers } from "../core/sandboxes/lsp/language-servers.ts";
import { createSandboxPreviews } from "../core/sandboxes/previews/previews.ts";
import { createBackgroundProcesses } from "../core/sandboxes/processes/background-processes.ts";
import { createTakeoverTerminals } from "../core/sandboxes/takeover/terminals.ts";
import { defaultModelServerUrl, defaultOpenAiUrl } from "../plugins/embeddings/embedding-settings.ts";
import { sqliteFile } from "../plugins/storage/connection-settings.ts";
import { defaultPlugins } from "./default-plugins.ts";
import { loadPlugins } from "./load-plugins.ts";
import { createMemorySearchThreads } from "./memory-search-threads.ts";
import { createPatternThreads } from "./pattern-threads.ts";
import { pickPort } from "./pick-ports.ts";
import { createRelationThread } from "./relation-threads.ts";
import { StartUpFailure } from "./start-up-failure.ts";

export interface PlatformOverrides {
  clock?: Clock;
  logger?: Logger;
  passwords?: PasswordHasher;
  sandboxRuntime?: SandboxRuntime;
  imageBuilder?: ImageBuilder;
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

/**
 * SVC_MEMORY_EMBEDDINGS_REQUIRED: one text is embedded before anything opens, so a deployment
 * that must search by meaning does not start with a model server it cannot reach.
 */
async function checkEmbeddings(config: Config, provider: EmbeddingProvider | null): Promise<void> {
  if (provider === null) {
    throw new StartUpFailure(
      "cairn: SVC_MEMORY_EMBEDDINGS_REQUIRED=true but semantic search is off; set SVC_MEMORY_EMBEDDINGS_ENABLED=true, or unset SVC_MEMORY_EMBEDDINGS_REQUIRED",
    );
  }
  try {
    await provider.embed(["cairn start-up check"]);
  } catch (error) {
    const server =
      provider.destination === "model_server"
        ? `the model server at ${config.SVC_MEMORY_EMBEDDING_BASE_URL ?? defaultModelServerUrl}`
        : `the embeddings provider at ${config.SVC_MEMORY_EMBEDDING_BASE_URL ?? defaultOpenAiUrl}`;
    const start = provider.destination === "model_server" ? "start it (npm run model-server) or " : "";
    throw new StartUpFailure(
      `cairn: semantic search is required (SVC_MEMORY_EMBEDDINGS_REQUIRED=true) but ${server} cannot embed: ${(error as Error).message}; ${start}correct SVC_MEMORY_EMBEDDING_BASE_URL, or unset SVC_MEMORY_EMBEDDINGS_REQUIRED to start with lexical search only`,
      { cause: error },
    );
  }
}

export async function createPlatform(config: Config, overrides: PlatformOverrides = {}): Promise<Platform> {
  const logger = overrides.logger ?? silentLogger;
  const clock = overrides.clock ?? systemClock;
  // Plugins first: one that cannot load stops the start before anything opens (docs/plugins.md).
  const loadedPlugins = await loadPlugins(config.SVC_PLUGINS);
  const builtIn = defaultPlugins.map((plugin) => ({ specifier: `built-in ${plugin.name}`, plugin }));
  const tools = createToolRegistry(pluginOperations([...builtIn, ...loadedPlugins], allOperations, config));
  const offering = [...defaultPlugins, ...loadedPlugins.map((loaded) => loaded.plugin)];
  const setup: PortSetup = { config, logger, clock };
  // Where memory content goes for embeddings is decided (and a destination outside the deployment
  // without SVC_MEMORY_EMBEDDING_PROVIDER refused) before anything starts
  // (docs/configuration.md#embeddings-semantic-search); null when semantic search is off.
  const embeddingProvider = await pickPort(offering, "embeddings", setup);
  if (config.SVC_MEMORY_EMBEDDINGS_REQUIRED) await checkEmbeddings(config, embeddingProvider);
  await mkdir(config.SVC_DATA_DIR, { recursive: true, mode: 0o700 });
  const openedStorage = await pickPort(offering, "storage", setup);
  const plugins = createPluginHost({
    plugins: loadedPlugins.map((loaded) => loaded.plugin),
    storage: openedStorage,
    clock,
    logger,
    delaySeconds: config.SVC_PLUGIN_EVENT_DELAY_SECONDS,
  });
  // Whatever ends a sandbox (destroy, the reaper, start-up reconciliation) emits sandbox.destroyed.
  const storage = {
    ...openedStorage,
    sandboxSessions: plugins.emittingOnEnd(openedStorage.sandboxSessions),
  };
  const rateLimits = await pickPort(offering, "rateLimits", setup);
  const languageServers = createLanguageServers({ logger });
  const backgroundProcesses = createBackgroundProcesses({
    logger,
    now: () => clock.now(),
    limitPerSession: config.SVC_MAX_PROCESSES_PER_SANDBOX,
    outputBytes: config.SVC_PROCESS_OUTPUT_BYTES,
  });
  // Whatever ends a sandbox (destroy, the reaper, reconciliation, shutdown) ends its language
  // servers and background processes.
  const previews = createSandboxPreviews({ links: storage.previewLinks, now: () => clock.now() });
  const terminals = createTakeoverTerminals({ now: () => clock.now(), activity: plugins });
  const sandboxRuntime = terminals.endingWithSessions(
    previews.endingWithSessions(
      backgroundProcesses.endingWithSessions(
        languageServers.endingWithSessions(
          overrides.sandboxRuntime ?? (await pickPort(offering, "sandboxRuntime", setup)),
        ),
      ),
    ),
  );
  const memoryEmbedder = embeddingProvider
    ? createMemoryEmbedder({
        memories: storage.memories,
        provider: embeddingProvider,
        logger,
        clock,
        afterStore: (batch) => linkCorrections(batch),
      })
    : null;
  // Tenant-chosen CPU goes to threads of its own where there are threads (not under Deno).
  const relationDetection =
    config.SVC_PATTERN_THREADS > 0 ? createRelationThread({ logger }) : createInlineRelationDetection();
  const memoryWriter = createMemoryWriter({
    memories: storage.memories,
    logger,
    relationDetection,
    afterWrite: (memoryIds) => memoryEmbedder?.wake(memoryIds),
    afterForget: (unembedded) => {
      storage.upkeep?.afterForget?.();
      if (unembedded.length > 0) memoryEmbedder?.wake(unembedded);
    },
    afterLink: storage.upkeep?.afterLink,
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
  // Corrections caught by meaning, once the embedder stored a new memory's vector (docs/memory.md#relations).
  const linkCorrections = createCorrectionLinker({
    memories: storage.memories,
    writer: memoryWriter,
    clock,
    fallbackLimit: config.SVC_MEMORY_VECTOR_FALLBACK_LIMIT,
    efSearch: config.SVC_MEMORY_HNSW_EF_SEARCH,
  });
  const memorySearch: MemorySearch =
    config.SVC_MEMORY_SEARCH_THREADS > 0
      ? createMemorySearchThreads({
          threads: config.SVC_MEMORY_SEARCH_THREADS,
          databaseUrl: config.SVC_DATABASE_URL,
          sqlitePath: sqliteFile(config.SVC_DATA_DIR),
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
    builder: overrides.imageBuilder ?? (await pickPort(offering, "imageBuilder", setup)),
    logger,
    now: () => clock.now(),
  });
  // Builds a stopped or crashed server left unfinished start again (docs/sandboxes.md#images).
  if (config.SVC_IMAGE_BUILDER_ENABLED) await imageBuilds.resume();
  // Relation detection a previous run queued but did not finish (a crash): linked before serving.
  await memoryWriter.linkAll();
  // Memories written while semantic search was off, or before a crash, get their vectors now.
  memoryEmbedder?.wake();
  const platform: Platform = {
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
    passwords: overrides.passwords ?? (await pickPort(offering, "passwords", setup)),
    dashboardTokens: createDashboardTokens({
      secret: await serverSecret(config, "SVC_JWT_SECRET", "jwt-secret"),
      ttlMinutes: config.SVC_ACCESS_TOKEN_TTL_MINUTES,
    }),
    rateLimits: rateLimits.buckets,
    loginGuard: rateLimits.loginGuard,
    sandboxRuntime,
    egress: await pickPort(offering, "egress", setup),
    secretCipher: createSecretCipher(await serverSecret(config, "SVC_SECRETS_KEY", "secrets-key")),
    languageServers,
    backgroundProcesses,
    previews,
    terminals,
    imageBuilds,
    async close() {
      await terminals.close();
      previews.close();
      await plugins.close();
      await imageBuilds.close();
      await memoryWriter.close();
      await memoryEmbedder?.close();
      await memorySearch.close();
      await patternWork.close();
      await relationDetection.close();
      await sandboxRuntime.close();
      await rateLimits.close();
      await storage.close();
    },
  };
  // Events a previous run left undelivered (a crash) go out now, then each as it is enqueued.
  plugins.start(platform);
  return platform;
}
