/**
 * The one request pipeline every transport shares: authenticate by the operation's credential
 * kind, take a rate-limit token, validate the input, run the handler, shape the output. A
 * transport only turns its wire format into `InvokeRequest` and the result back: it takes the
 * credential out of its own envelope (an HTTP `Authorization` header), and places a bad field,
 * which core names by its path in the input, where its request carried it.
 */
import type { z } from "zod";
import { requestStarted } from "./account-activity.ts";
import { apiKeyPrefix, constantTimeEqual, hasValidChecksum, sha256Hex } from "./auth/api-keys.ts";
import { isOAuthAccessToken } from "./auth/oauth-values.ts";
import { type RateLimitState, ServiceError, type ValidationIssue } from "./errors.ts";
import type { PlatformServices } from "./platform-services.ts";
import type { ApiKeyRole } from "./ports/storage.ts";
import { bucketLimit } from "./rate-limits.ts";
import {
  type AnyTool,
  type CredentialKind,
  isEnabled,
  type PlatformServiceName,
  requireAdminRole,
  type ToolContext,
  type ToolGroup,
  type ToolProgress,
} from "./tool.ts";

export interface InvokeRequest {
  /** The bare credential (an API key or a dashboard token), or null when the caller sent none. */
  credential: string | null;
  clientIp: string;
  requestId: string;
  signal: AbortSignal;
  /** The operation's input, gathered by the transport; validation errors locate a field by its path in it. */
  input: unknown;
  /**
   * Set by a transport that has just authenticated this same request's credential with
   * `authenticate` (MCP checks it at the door): used when it is of the kind the operation needs.
   */
  principal?: Principal;
  /** For a streamed call of an operation that `streamsOutput` (core/tool.ts): where its progress goes. */
  reportProgress?: (progress: ToolProgress) => void;
  /**
   * Told the bucket's state once the call has its token, before the handler runs: a streamed
   * answer sends its headers (X-RateLimit-*) before the result that carries `rateLimit`.
   */
  onRateLimit?: (rateLimit: RateLimitState | null) => void;
}

/** Who a credential belongs to: the account, and which key or token it was. */
export interface Principal {
  kind: "api_key" | "dashboard";
  accountId: string;
  /** The API key's id, or the account id for a dashboard token. */
  credentialId: string;
  /** An API key's role; absent (as good as `admin`) for a dashboard token or an OAuth grant. */
  role?: ApiKeyRole;
}

export interface InvokeResult<Output = unknown> {
  output: Output;
  /** The bucket's state after this call; null for operations without a bucket. */
  rateLimit: RateLimitState | null;
}

const lastUsedIntervalMilliseconds = 60_000;

export async function invoke<Tool extends AnyTool>(
  platform: PlatformServices,
  tool: Tool,
  request: InvokeRequest,
): Promise<InvokeResult<z.output<Tool["output"]>>> {
  // A switched-off operation is not there at all: the same answer as an unknown route.
  if (!isEnabled(tool, platform.config)) throw new ServiceError("not_found", "Not found");
  const now = platform.clock.now();
  const principal =
    request.principal?.kind === tool.auth
      ? request.principal
      : await authenticate(platform, tool.auth, request.credential, now);
  const accountId = principal?.accountId ?? null;
  if (tool.role === "admin") requireAdminRole(principal?.role ?? "admin");
  await requireSandboxRuntime(platform, tool);
  // Checked before a token is taken: a call refused for its input did nothing, and a model
  // correcting its arguments must not use up a small bucket (image builds: 3 a minute).
  const input = validate(tool.input, request.input);
  const rateLimit = await takeToken(platform, tool, accountId ?? `ip:${request.clientIp}`, now);
  request.onRateLimit?.(rateLimit);
  const context: ToolContext<PlatformServiceName> = {
    platform: declaredServices(platform, tool),
    accountId,
    credentialId: principal?.credentialId ?? null,
    role: principal?.role ?? "admin",
    requestId: request.requestId,
    clientIp: request.clientIp,
    signal: request.signal,
    logger: platform.logger.child({ requestId: request.requestId, operation: tool.name }),
    now,
    reportProgress: tool.streamsOutput ? request.reportProgress : undefined,
  };
  const served = accountId === null ? null : requestStarted(accountId);
  try {
    const output = await tool.handler(context, input);
    return { output: tool.output.parse(output) as z.output<Tool["output"]>, rateLimit };
  } finally {
    served?.();
  }
}

/** Per platform, per operation: what its handler sees of the platform, built on its first call. */
const servicesSeen = new WeakMap<PlatformServices, WeakMap<AnyTool, PlatformServices>>();

/**
 * The platform as the operation declared it (`uses`, core/tool.ts): a frozen object holding only
 * those ports and services, so one it did not declare is undefined in its handler as well as a
 * type error. Each property reads through to the platform, so it sees what the platform holds.
 */
function declaredServices(platform: PlatformServices, tool: AnyTool): PlatformServices {
  let byTool = servicesSeen.get(platform);
  if (!byTool) {
    byTool = new WeakMap();
    servicesSeen.set(platform, byTool);
  }
  let services = byTool.get(tool);
  if (!services) {
    const declared = {};
    for (const name of tool.uses)
      Object.defineProperty(declared, name, { enumerable: true, get: () => platform[name] });
    // Typed whole for the handler call only: every operation's own type names just what it declared.
    services = Object.freeze(declared) as PlatformServices;
    byTool.set(tool, services);
  }
  return services;
}

/** The groups whose operations run in a sandbox, so need a runtime that can run one. */
const sandboxGroups: ReadonlySet<ToolGroup> = new Set(["sandboxes", "files", "lsp", "processes"]);

/**
 * A machine where the sandbox runtime cannot run (no bubblewrap, not root) still serves memory and
 * accounts; its sandbox operations answer service_unavailable with the command that fixes it,
 * before any token is spent.
 */
async function requireSandboxRuntime(platform: PlatformServices, tool: AnyTool): Promise<void> {
  if (tool.group === undefined || !sandboxGroups.has(tool.group)) return;
  const problem = await platform.sandboxRuntime.unavailable?.();
  if (!problem) return;
  throw new ServiceError(
    "service_unavailable",
    `Sandboxes are not available on this server: ${problem.lacks}`,
    {
      remediation: problem.remediation,
    },
  );
}

/**
 * The account a credential belongs to, by the rules every route and tool follows: no credential
 * (a transport passes none for a missing or malformed one), the wrong kind of credential, or an
 * unknown or revoked one is refused.
 */
export async function authenticate(
  platform: PlatformServices,
  kind: CredentialKind,
  credential: string | null,
  now: Date,
): Promise<Principal | null> {
  if (kind === "none") return null;
  // Worded for the HTTP clients that send nearly every call, as the wire has always said it.
  if (!credential) throw new ServiceError("missing_credentials", "Missing or malformed Authorization header");
  // Its audience is /mcp (RFC 8707), so it is no credential for any operation here.
  if (isOAuthAccessToken(credential))
    throw new ServiceError(
      "wrong_credential_type",
      "An OAuth access token is accepted only by /mcp, the resource it was issued for; use an API key",
    );
  const isApiKey = credential.startsWith(apiKeyPrefix);
  if (kind === "api_key") {
    if (!isApiKey)
      throw new ServiceError("wrong_credential_type", "This route needs an API key, not a dashboard token");
    return authenticateApiKey(platform, credential, now);
  }
  if (isApiKey)
    throw new ServiceError("wrong_credential_type", "This route needs a dashboard token, not an API key");
  const claims = await platform.dashboardTokens.verify(credential, now);
  const account = await platform.storage.accounts.findById(claims.accountId);
  if (!account) throw new ServiceError("invalid_token", "Invalid or expired dashboard token");
  return { kind: "dashboard", accountId: account.id, credentialId: account.id };
}

async function authenticateApiKey(platform: PlatformServices, key: string, now: Date): Promise<Principal> {
  const invalid = () => new ServiceError("invalid_api_key", "Invalid or revoked API key");
  // A key whose checksum fails is refused without touching the database.
  if (!hasValidChecksum(key)) throw invalid();
  const digest = await sha256Hex(key);
  const record = await platform.storage.apiKeys.findActiveByHash(digest);
  if (!record || !constantTimeEqual(record.keyHash, digest)) throw invalid();
  const lastUsed = record.lastUsedAt?.getTime() ?? 0;
  // Recorded beside the request, not before it: on SQLite the write waits for the one writer,
  // which another account's import may hold for a while (bystanders waited over a second).
  if (now.getTime() - lastUsed >= lastUsedIntervalMilliseconds) {
    platform.storage.apiKeys
      .touch(record.id, now)
      .catch((error: unknown) =>
        platform.logger.warn({ err: error }, "an API key's last use was not recorded"),
      );
  }
  return { kind: "api_key", accountId: record.accountId, credentialId: record.id, role: record.role };
}

async function takeToken(
  platform: PlatformServices,
  tool: AnyTool,
  subject: string,
  now: Date,
): Promise<RateLimitState | null> {
  if (!tool.bucket) return null;
  // A built-in bucket's limit is configuration; a plugin's was settled when the plugin loaded.
  const bucket =
    typeof tool.bucket === "string"
      ? { name: tool.bucket, perMinute: bucketLimit(platform.config, tool.bucket) }
      : tool.bucket;
  const limit = bucket.perMinute;
  const decision = await platform.rateLimits.consume(`${bucket.name}:${subject}`, limit, now);
  const rateLimit = { limit, remaining: decision.remaining, retryAfterSeconds: decision.retryAfterSeconds };
  if (decision.allowed) return rateLimit;
  throw new ServiceError(
    "rate_limited",
    `Rate limit exceeded for ${bucket.name}; retry in ${decision.retryAfterSeconds} s`,
    {
      details: { bucket: bucket.name, limit, retry_after_seconds: decision.retryAfterSeconds },
      rateLimit: { ...rateLimit, remaining: 0 },
    },
  );
}

function validate<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details: ValidationIssue[] = result.error.issues.map((issue) => ({
    type: issue.code,
    loc: issue.path.map(String),
    // zod's issue text never includes the submitted value.
    msg: issue.message,
  }));
  throw new ServiceError("validation_error", "Invalid request", { details });
}
