/**
 * The one request pipeline every transport shares: authenticate by the operation's credential
 * kind, take a rate-limit token, validate the input, run the handler, shape the output. A
 * transport only turns its wire format into `InvokeRequest` and the result back.
 */
import type { z } from "zod";
import { apiKeyPrefix, constantTimeEqual, hasValidChecksum, sha256Hex } from "./auth/api-keys.ts";
import { ServiceError } from "./errors.ts";
import type { Platform } from "./platform.ts";
import { bucketLimit } from "./rate-limits.ts";
import type { ToolContext, ToolDefinition } from "./tool.ts";

export interface InvokeRequest {
  /** The raw Authorization header, if any. */
  authorization: string | null;
  clientIp: string;
  requestId: string;
  signal: AbortSignal;
  /** Input fields gathered by the transport (path parameters, query or body). */
  input: unknown;
  /** Where non-path fields came from, for validation error locations. */
  source: "body" | "query";
  pathParameters?: readonly string[];
}

export interface InvokeResult {
  output: unknown;
  headers: Record<string, string>;
}

const lastUsedIntervalMilliseconds = 60_000;

export async function invoke(
  platform: Platform,
  tool: ToolDefinition,
  request: InvokeRequest,
): Promise<InvokeResult> {
  const now = platform.clock.now();
  const accountId = await authenticate(platform, tool, request.authorization, now);
  const headers = await takeToken(platform, tool, accountId ?? `ip:${request.clientIp}`, now);
  const input = validate(tool.input, request);
  const context: ToolContext = {
    platform,
    accountId,
    requestId: request.requestId,
    clientIp: request.clientIp,
    signal: request.signal,
    logger: platform.logger.child({ requestId: request.requestId, operation: tool.name }),
    now,
  };
  const output = await tool.handler(context, input);
  return { output: tool.output.parse(output), headers };
}

function bearerToken(authorization: string | null): string {
  const match = authorization?.match(/^bearer[ \t]+([^\s]+)[ \t]*$/i);
  if (!match) throw new ServiceError("missing_credentials", "Missing or malformed Authorization header");
  return match[1];
}

async function authenticate(
  platform: Platform,
  tool: ToolDefinition,
  authorization: string | null,
  now: Date,
): Promise<string | null> {
  if (tool.auth === "none") return null;
  const token = bearerToken(authorization);
  const isApiKey = token.startsWith(apiKeyPrefix);
  if (tool.auth === "api_key") {
    if (!isApiKey)
      throw new ServiceError("wrong_credential_type", "This route needs an API key, not a dashboard token");
    return authenticateApiKey(platform, token, now);
  }
  if (isApiKey)
    throw new ServiceError("wrong_credential_type", "This route needs a dashboard token, not an API key");
  const claims = await platform.dashboardTokens.verify(token, now);
  const account = await platform.storage.accounts.findById(claims.accountId);
  if (!account) throw new ServiceError("invalid_token", "Invalid or expired dashboard token");
  return account.id;
}

async function authenticateApiKey(platform: Platform, key: string, now: Date): Promise<string> {
  const invalid = () => new ServiceError("invalid_api_key", "Invalid or revoked API key");
  // A key whose checksum fails is refused without touching the database.
  if (!hasValidChecksum(key)) throw invalid();
  const digest = await sha256Hex(key);
  const record = await platform.storage.apiKeys.findActiveByHash(digest);
  if (!record || !constantTimeEqual(record.keyHash, digest)) throw invalid();
  const lastUsed = record.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - lastUsed >= lastUsedIntervalMilliseconds)
    await platform.storage.apiKeys.touch(record.id, now);
  return record.accountId;
}

async function takeToken(
  platform: Platform,
  tool: ToolDefinition,
  subject: string,
  now: Date,
): Promise<Record<string, string>> {
  if (!tool.bucket) return {};
  const limit = bucketLimit(platform.config, tool.bucket);
  const decision = await platform.rateLimits.consume(`${tool.bucket}:${subject}`, limit, now);
  const headers = { "X-RateLimit-Limit": String(limit), "X-RateLimit-Remaining": String(decision.remaining) };
  if (decision.allowed) return headers;
  throw new ServiceError(
    "rate_limited",
    `Rate limit exceeded for ${tool.bucket}; retry in ${decision.retryAfterSeconds} s`,
    {
      details: { bucket: tool.bucket, limit, retry_after_seconds: decision.retryAfterSeconds },
      headers: { ...headers, "Retry-After": String(decision.retryAfterSeconds) },
    },
  );
}

function validate<Schema extends z.ZodType>(schema: Schema, request: InvokeRequest): z.output<Schema> {
  const result = schema.safeParse(request.input ?? {});
  if (result.success) return result.data;
  const pathParameters = new Set(request.pathParameters ?? []);
  const details = result.error.issues.map((issue) => {
    const first = issue.path[0];
    const location = typeof first === "string" && pathParameters.has(first) ? "path" : request.source;
    // Messages come from zod's issue text, which never includes the submitted value.
    return { type: issue.code, loc: [location, ...issue.path.map(String)], msg: issue.message };
  });
  throw new ServiceError("validation_error", "Invalid request", { details });
}
