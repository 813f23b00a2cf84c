/**
 * The platform as an operation sees it: the ports and core services a handler reaches through
 * `context.platform`. `Platform` (platform.ts) adds what only the transports and the composition
 * root use, the registry of operations and `close`; keeping it out of here keeps the operations
 * out of their own type (test/import-cycles.test.ts).
 */
import type { DashboardTokens } from "./auth/dashboard-tokens.ts";
import type { Config } from "./config.ts";
import type { MemoryEmbedder } from "./memory/embedder.ts";
import type { MemoryWriter } from "./memory/memory-writer.ts";
import type { Clock } from "./ports/clock.ts";
import type { Egress } from "./ports/egress.ts";
import type { Logger } from "./ports/logger.ts";
import type { MemorySearch } from "./ports/memory-search.ts";
import type { PasswordHasher } from "./ports/passwords.ts";
import type { PatternWork } from "./ports/pattern-work.ts";
import type { LoginGuard, TokenBucketStore } from "./ports/rate-limit.ts";
import type { SandboxActivityRecorder } from "./ports/sandbox-activity.ts";
import type { SandboxRuntime } from "./ports/sandbox-runtime.ts";
import type { Storage } from "./ports/storage.ts";
import type { SecretCipher } from "./sandboxes/broker/secrets.ts";
import type { ImageBuilds } from "./sandboxes/images/images.ts";
import type { LanguageServers } from "./sandboxes/lsp/language-servers.ts";
import type { SandboxPreviews } from "./sandboxes/previews/previews.ts";
import type { BackgroundProcesses } from "./sandboxes/processes/background-processes.ts";
import type { TakeoverTerminals } from "./sandboxes/takeover/terminals.ts";

export interface PlatformServices {
  readonly config: Config;
  /** What operations tell the loaded plugins (docs/plugins.md#hooks): the plugin host. */
  readonly plugins: SandboxActivityRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly storage: Storage;
  /** The memory write path: grouped remembers and the relation-detection queue. */
  readonly memoryWriter: MemoryWriter;
  /** Where recall ranks: in process, or on worker threads. */
  readonly memorySearch: MemorySearch;
  /** Semantic search's background embedder and query embeddings; null when SVC_MEMORY_EMBEDDINGS_ENABLED is false. */
  readonly memoryEmbedder: MemoryEmbedder | null;
  /** Where tenant patterns are matched (grep, glob, allowlist): on pattern threads, or in process. */
  readonly patternWork: PatternWork;
  readonly passwords: PasswordHasher;
  readonly dashboardTokens: DashboardTokens;
  readonly rateLimits: TokenBucketStore;
  readonly loginGuard: LoginGuard;
  readonly sandboxRuntime: SandboxRuntime;
  readonly egress: Egress;
  readonly secretCipher: SecretCipher;
  /** Language servers running in this process's sandboxes, by session (docs/sandboxes.md#language-servers). */
  readonly languageServers: LanguageServers;
  /** Background processes running in this process's sandboxes, by session (docs/sandboxes.md#processes). */
  readonly backgroundProcesses: BackgroundProcesses;
  /** Preview links of sandbox ports and their relays (docs/sandboxes.md#previews). */
  readonly previews: SandboxPreviews;
  /** Takeover terminals, their recordings and tokens (docs/sandboxes.md#takeover-terminal). */
  readonly terminals: TakeoverTerminals;
  /** Custom image builds running in this process (docs/sandboxes.md#images). */
  readonly imageBuilds: ImageBuilds;
}

/**
 * Every name an operation may declare in `uses` (core/tool.ts), checked against the interface
 * both ways by the type: a service added above without a line here does not compile.
 */
const serviceNames: Record<keyof PlatformServices, true> = {
  config: true,
  plugins: true,
  clock: true,
  logger: true,
  storage: true,
  memoryWriter: true,
  memorySearch: true,
  memoryEmbedder: true,
  patternWork: true,
  passwords: true,
  dashboardTokens: true,
  rateLimits: true,
  loginGuard: true,
  sandboxRuntime: true,
  egress: true,
  secretCipher: true,
  languageServers: true,
  backgroundProcesses: true,
  previews: true,
  terminals: true,
  imageBuilds: true,
};

export const platformServiceNames = Object.keys(serviceNames) as readonly (keyof PlatformServices)[];
