/**
 * The ports bundle every handler reaches through its context. `createPlatform` (in platform/,
 * the composition root) fills it from configuration; tests fill it with whatever they need.
 */
import type { DashboardTokens } from "./auth/dashboard-tokens.ts";
import type { Config } from "./config.ts";
import type { MemoryEmbedder } from "./memory/embedder.ts";
import type { MemoryWriter } from "./memory/memory-writer.ts";
import type { PluginHost } from "./plugins/plugin-host.ts";
import type { Clock } from "./ports/clock.ts";
import type { Egress } from "./ports/egress.ts";
import type { Logger } from "./ports/logger.ts";
import type { MemorySearch } from "./ports/memory-search.ts";
import type { PasswordHasher } from "./ports/passwords.ts";
import type { PatternWork } from "./ports/pattern-work.ts";
import type { LoginGuard, TokenBucketStore } from "./ports/rate-limit.ts";
import type { SandboxRuntime } from "./ports/sandbox-runtime.ts";
import type { Storage } from "./ports/storage.ts";
import type { ToolRegistry } from "./registry.ts";
import type { SecretCipher } from "./sandboxes/broker/secrets.ts";
import type { ImageBuilds } from "./sandboxes/images/images.ts";
import type { LanguageServers } from "./sandboxes/lsp/language-servers.ts";

export interface Platform {
  readonly config: Config;
  /** The operations this deployment serves: built-ins and loaded plugins' tools. */
  readonly tools: ToolRegistry;
  /** The loaded plugins' events: enqueued by operations, delivered to hooks (docs/plugins.md#hooks). */
  readonly plugins: PluginHost;
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
  /** Custom image builds running in this process (docs/sandboxes.md#images). */
  readonly imageBuilds: ImageBuilds;
  close(): Promise<void>;
}
