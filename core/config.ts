/**
 * Typed server configuration: every setting is an `SVC_*` environment variable (docs/configuration.md),
 * parsed once here. Core takes the environment as a plain record so it stays runtime-neutral.
 */
import { z } from "zod";
import { rateLimitStoreNames } from "./ports/rate-limit.ts";
import { sandboxRuntimeNames } from "./ports/sandbox-runtime.ts";
import { sandboxSizes } from "./sandboxes/sessions/sizes.ts";

const boolean = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""], { error: "expected true, false, 1, 0, yes or no" })
    .optional()
    .transform((value) =>
      value === undefined || value === "" ? fallback : ["true", "1", "yes"].includes(value),
    );

// Each message says what a right value looks like; loadConfig adds the variable's name and value.
const wholeNumber = (minimum: number, maximum = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: "expected a whole number" })
    .int({ error: "expected a whole number" })
    .min(minimum, { error: `expected a whole number of at least ${minimum}` })
    .max(maximum, { error: `expected a whole number of at most ${maximum}` });
const integer = (fallback: number, minimum = 0) => wholeNumber(minimum).default(fallback);
const number = (fallback: number) =>
  z.coerce
    .number({ error: "expected a number" })
    .min(0, { error: "expected a number of at least 0" })
    .default(fallback);
const list = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

const sandboxSize = z.enum(sandboxSizes);

/** The hosts an image build may reach when SVC_IMAGE_REGISTRY_HOSTS is unset (docs/configuration.md#sandboxes). */
export const defaultImageRegistryHosts: readonly string[] = [
  "registry.npmjs.org",
  "pypi.org",
  "files.pythonhosted.org",
  "deb.debian.org",
];

/** The outbound-MCP catalog when SVC_MCP_CATALOG is unset (docs/configuration.md#sandboxes). */
export const defaultMcpCatalog: Readonly<Record<string, string>> = {
  slack: "mcp.slack.com",
  notion: "mcp.notion.com",
  linear: "mcp.linear.app",
  github: "api.githubcopilot.com",
};

const catalogId = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// A DNS name (letters, digits, hyphens, dots) or an IPv4 literal; no port, path or scheme.
const catalogHost = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** "id=host,id=host" → {id: host}; empty means the default catalog. */
const mcpCatalog = z
  .string()
  .default("")
  .transform((value, context) => {
    const entries = value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    if (entries.length === 0) return { ...defaultMcpCatalog };
    const catalog: Record<string, string> = {};
    for (const entry of entries) {
      const [id, host, ...rest] = entry.split("=").map((part) => part.trim().toLowerCase());
      if (
        rest.length > 0 ||
        !catalogId.test(id ?? "") ||
        !catalogHost.test(host ?? "") ||
        Object.hasOwn(catalog, id)
      ) {
        context.addIssue({
          code: "custom",
          message: `expected "id=host" entries with unique ids, got ${JSON.stringify(entry)}`,
        });
        return z.NEVER;
      }
      catalog[id] = host;
    }
    return catalog;
  });

/** Managed embedding providers (docs/configuration.md#embeddings-semantic-search). */
export const embeddingProviders = ["openai", "openai-compatible"] as const;

/** Trimmed text, with empty meaning unset (so `SVC_X=` in a compose file names nothing). */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** An http(s) base URL without credentials, query or fragment, returned without a trailing slash. */
const embeddingBaseUrl = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      context.addIssue({ code: "custom", message: `expected an http(s) URL, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    const problem =
      url.protocol !== "http:" && url.protocol !== "https:"
        ? "expected an http:// or https:// URL"
        : url.username !== "" || url.password !== ""
          ? "must not contain credentials; set SVC_MEMORY_EMBEDDING_API_KEY instead"
          : url.search !== "" || url.hash !== ""
            ? "must not have a query or fragment"
            : null;
    if (problem !== null) {
      context.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return url.href.replace(/\/+$/, "");
  });

const schema = z.object({
  SVC_HOST: z.string().default("127.0.0.1"),
  SVC_PORT: wholeNumber(0, 65535).default(8090),
  SVC_DATA_DIR: z.string().default("./.cairn"),
  // Unset or empty: SQLite in the data directory; anything else must be PostgreSQL's URL.
  SVC_DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, {
        error: "expected a postgres:// or postgresql:// URL, or unset for SQLite",
      })
      .optional(),
  ),
  SVC_ENV: z.enum(["development", "production"]).default("development"),
  SVC_CORS_ALLOWED_ORIGINS: list,
  SVC_API_DOCS: boolean(true),
  SVC_METRICS_ENABLED: boolean(true),
  SVC_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SVC_MAX_BODY_BYTES: integer(16 * 1024 * 1024, 1024),
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut. */
  SVC_SHUTDOWN_TIMEOUT_SECONDS: integer(25, 1),

  SVC_JWT_SECRET: z.string().optional(),
  SVC_ACCESS_TOKEN_TTL_MINUTES: integer(30, 1),
  /** Cairn as an OAuth 2.1 authorization server for its own /mcp (docs/mcp.md#connecting-as-a-remote-connector-oauth). */
  SVC_MCP_OAUTH_ENABLED: boolean(false),
  /**
   * The server's public origin (`https://cairn.example.com`), which names the OAuth resource and
   * issuer; unset, each request's own URL does (right unless a proxy changes scheme or host).
   */
  SVC_PUBLIC_URL: optionalText.pipe(embeddingBaseUrl),
  /** Preview links as `{port}-{sandbox id}.<domain>` hosts (docs/sandboxes.md#previews); unset, under /v1/previews. */
  SVC_PREVIEW_DOMAIN: optionalText,

  SVC_FREE_MONTHLY_SANDBOX_HOURS: number(20),
  SVC_MAX_SESSION_MINUTES: integer(30, 1),
  SVC_MAX_CONCURRENT_SANDBOXES: integer(2),
  SVC_GLOBAL_MAX_CONCURRENT_SANDBOXES: integer(20),
  SVC_MAX_SANDBOX_SIZE: sandboxSize.default("medium"),
  SVC_MAX_SANDBOX_STORAGE_GB: number(20),
  SVC_MAX_ALLOWLIST_RULES: integer(50, 1),
  SVC_MAX_SECRETS_PER_ACCOUNT: integer(50),
  SVC_MAX_IMAGES_PER_ACCOUNT: integer(10),
  SVC_MAX_VOLUMES_PER_ACCOUNT: integer(10),
  SVC_MAX_SNAPSHOTS_PER_ACCOUNT: integer(10),
  SVC_MAX_MCP_CONNECTIONS_PER_ACCOUNT: integer(50),
  SVC_SESSION_REAPER_INTERVAL_SECONDS: integer(60, 1),

  SVC_RATE_LIMIT_STORE: z.enum(rateLimitStoreNames).default("memory"),
  SVC_REDIS_URL: z.string().optional(),
  SVC_AUTH_RATE_LIMIT_PER_MINUTE: integer(10, 1),
  SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE: integer(20, 1),
  SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: integer(120, 1),
  SVC_SECRET_RATE_LIMIT_PER_MINUTE: integer(10, 1),
  SVC_MCP_CONNECTION_RATE_LIMIT_PER_MINUTE: integer(10, 1),
  SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: integer(3, 1),
  SVC_VOLUME_RATE_LIMIT_PER_MINUTE: integer(3, 1),
  SVC_MEMORY_RATE_LIMIT_PER_MINUTE: integer(120, 1),

  SVC_SANDBOX_RUNTIME: z.enum(sandboxRuntimeNames).default("local"),
  SVC_KUBE_NAMESPACE: z.string().default("cairn-sandboxes"),
  /** The local runtime's bubblewrap (`npm run setup` installs Debian's, at the default path). */
  SVC_BUBBLEWRAP_PATH: z.string().min(1).default("/usr/bin/bwrap"),
  // Host uids (and gids) the local runtime hands out, one per sandbox: "first-last", inclusive.
  SVC_SANDBOX_UID_RANGE: z
    .string()
    .default("2000000-2065535")
    .transform((value, context) => {
      const match = /^(\d+)-(\d+)$/.exec(value.trim());
      const [first, last] = match === null ? [Number.NaN, Number.NaN] : [Number(match[1]), Number(match[2])];
      // Below 1000 are the host's system accounts; 2^32 - 1 is the kernel's "no uid".
      if (!(first >= 1000 && last >= first && last < 4_294_967_295)) {
        context.addIssue({
          code: "custom",
          message: 'expected "first-last" with 1000 <= first <= last < 4294967295',
        });
        return z.NEVER;
      }
      return { first, count: last - first + 1 };
    }),
  SVC_KUBE_SANDBOX_IMAGE: z.string().optional(),
  // A VolumeSnapshotClass turns on snapshots on Kubernetes (docs/sandboxes.md#snapshots).
  SVC_KUBE_SNAPSHOT_CLASS: z.string().optional(),
  SVC_KUBE_WORKSPACE_STORAGE_CLASS: z.string().optional(),
  SVC_IMAGE_BASES: list,
  SVC_GLOBAL_MAX_IMAGE_BUILDS: integer(5, 1),
  SVC_IMAGE_BUILD_TIMEOUT_SECONDS: integer(900, 1),
  SVC_IMAGE_REGISTRY_HOSTS: list.transform((hosts) =>
    hosts.length > 0 ? hosts.map((host) => host.toLowerCase()) : [...defaultImageRegistryHosts],
  ),
  SVC_KUBE_IMAGE_REPOSITORY: z.string().optional(),
  /** Where build Jobs run; the sandbox namespace when unset (kaniko runs as root: see 30-config.yaml). */
  SVC_KUBE_BUILD_NAMESPACE: z.string().optional(),
  SVC_KUBE_IMAGE_BUILDER_IMAGE: z.string().default("gcr.io/kaniko-project/executor:v1.23.2"),
  SVC_MCP_CATALOG: mcpCatalog,
  SVC_LSP_ENABLED: boolean(true),
  SVC_MAX_PROCESSES_PER_SANDBOX: integer(8, 1),
  SVC_PROCESS_OUTPUT_BYTES: integer(1_048_576, 4096),
  SVC_IMAGE_BUILDER_ENABLED: boolean(true),
  SVC_VOLUMES_ENABLED: boolean(true),
  SVC_SECRETS_KEY: z.string().optional(),
  SVC_ALLOW_PRIVATE_EGRESS: boolean(false),

  SVC_MEMORY_EMBEDDINGS_ENABLED: boolean(false),
  /** The start stops, in one line, unless one embedding can be computed (docs/configuration.md#embeddings-semantic-search). */
  SVC_MEMORY_EMBEDDINGS_REQUIRED: boolean(false),
  // Unset or empty: the self-hosted model server; a managed provider only when named here.
  SVC_MEMORY_EMBEDDING_PROVIDER: optionalText.pipe(z.enum(embeddingProviders).optional()),
  // Unset: the provider's default (plugins/embeddings/embedding-settings.ts applies it).
  SVC_MEMORY_EMBEDDING_BASE_URL: optionalText.pipe(embeddingBaseUrl),
  SVC_MEMORY_EMBEDDING_API_KEY: optionalText.pipe(
    z
      .string()
      .regex(/^[\x21-\x7e]+$/, "expected printable ASCII without spaces (it travels in a header)")
      .optional(),
  ),
  SVC_MEMORY_EMBEDDING_MODEL: optionalText,
  SVC_MEMORY_EMBEDDING_DIMENSIONS: z.coerce.number().int().positive().optional(),
  // Bounded so the timer never overflows (timers past 2^31 ms fire at once).
  SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(10),
  SVC_MEMORY_VECTOR_FALLBACK_LIMIT: integer(2000, 1),
  SVC_MEMORY_HNSW_EF_SEARCH: integer(200, 1),
  /** Above this many of an account's memories, a search term counts as common (docs/memory.md#search). */
  SVC_MEMORY_COMMON_TERM_ROWS: integer(2000, 1),
  /** Worker threads that rank recalls (0: on the thread that serves requests). */
  SVC_MEMORY_SEARCH_THREADS: integer(2, 0),
  /**
   * Worker threads that match tenant patterns: grep, glob and allowlist checks (0: on the thread
   * that serves requests, where each match is still linear-time but holds the event loop).
   */
  SVC_PATTERN_THREADS: integer(1, 0),

  /** Plugin modules loaded at start: package names or paths (docs/plugins.md). */
  SVC_PLUGINS: list,
  /** Seconds a plugin event waits before delivery (0; tests hold delivery back with it). */
  SVC_PLUGIN_EVENT_DELAY_SECONDS: integer(0, 0),
});

/** `SVC_PLUGIN_<PLUGIN>_<BUCKET>_RATE_LIMIT_PER_MINUTE`: a plugin bucket's limit (docs/plugins.md#rate-limits). */
const pluginRateLimitName = /^SVC_PLUGIN_[A-Z0-9_]+_RATE_LIMIT_PER_MINUTE$/;

export type Config = z.infer<typeof schema> & {
  /** Plugin buckets' limits set by the operator, by variable name; checked against the plugins at start. */
  pluginRateLimits: Readonly<Record<string, number>>;
};

/** A setting that cannot be used: each problem names the variable, its value and what is expected. */
export class InvalidConfiguration extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join("; ")}`);
    this.name = "InvalidConfiguration";
    this.problems = problems;
  }
}

/** Parses the environment; an invalid value stops start-up with a message naming the variable. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  const relevant = Object.entries(environment).filter(
    (entry): entry is [string, string] => entry[0].startsWith("SVC_") && entry[1] !== undefined,
  );
  const pluginLimits = relevant.filter(([name]) => pluginRateLimitName.test(name));
  const result = z
    .object({ ...schema.shape, ...Object.fromEntries(pluginLimits.map(([name]) => [name, integer(1, 1)])) })
    .safeParse(Object.fromEntries(relevant));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.join(".");
      const value = environment[name];
      // Values that may hold a credential are named, never echoed.
      const shown =
        value === undefined || /SECRET|KEY|PASSWORD|_URL$/.test(name)
          ? ""
          : ` (got ${JSON.stringify(value)})`;
      const message = issue.message
        .replace(/^Invalid (option|input): /, "")
        .replace(/^expected number, received NaN$/, "expected a number");
      return `${name}: ${message}${shown}`;
    });
    throw new InvalidConfiguration(problems);
  }
  const data = result.data as z.infer<typeof schema> & Record<string, unknown>;
  const pluginRateLimits = Object.fromEntries(pluginLimits.map(([name]) => [name, data[name] as number]));
  for (const [name] of pluginLimits) delete data[name];
  return { ...data, pluginRateLimits };
}
