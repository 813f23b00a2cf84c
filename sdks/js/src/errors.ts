/**
 * The SDK's errors. Every failure is a `CairnError`: `CairnConnectionError` when no answer came
 * (network failure, timeout), `CairnApiError` when the server answered with its error envelope.
 * API errors of a few families have their own subclasses, so `instanceof QuotaExceededError` reads
 * as what happened; `apiErrorType` names the family for code that prefers a string.
 */

export class CairnError extends Error {
  override name = "CairnError";
}

export class CairnConnectionError extends CairnError {
  override name = "CairnConnectionError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export type ApiErrorType =
  | "quota_exceeded"
  | "capability_denied"
  | "egress_denied"
  | "sandbox_not_ready"
  | "service_unavailable";

/** The family of an error code (CONTRACT §5): quotas and capacity, refusals, and server trouble. */
export function apiErrorType(code: string, statusCode: number): ApiErrorType | null {
  if (code.endsWith("_limit_reached") || code.endsWith("_capacity_reached")) return "quota_exceeded";
  if (code === "command_not_allowed" || code === "path_outside_sandbox") return "capability_denied";
  if (code === "egress_denied" || code === "sandbox_not_ready") return code;
  if (code === "service_unavailable" || statusCode >= 500) return "service_unavailable";
  return null;
}

export interface ApiErrorFields {
  statusCode: number;
  code: string;
  message: string;
  retryable: boolean;
  remediation: string | null;
  details?: unknown;
  /** From `Retry-After`, when the server says how long to wait. */
  retryAfterSeconds: number | null;
  /** The server's `X-Request-ID`, for support and logs. */
  requestId: string | null;
}

export class CairnApiError extends CairnError {
  override name = "CairnApiError";
  readonly statusCode: number;
  readonly code: string;
  readonly retryable: boolean;
  readonly remediation: string | null;
  readonly details: unknown;
  readonly retryAfterSeconds: number | null;
  readonly requestId: string | null;
  readonly apiErrorType: ApiErrorType | null;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.statusCode = fields.statusCode;
    this.code = fields.code;
    this.retryable = fields.retryable;
    this.remediation = fields.remediation;
    this.details = fields.details;
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.requestId = fields.requestId;
    this.apiErrorType = apiErrorType(fields.code, fields.statusCode);
  }
}

export class QuotaExceededError extends CairnApiError {
  override name = "QuotaExceededError";
}
export class CapabilityDeniedError extends CairnApiError {
  override name = "CapabilityDeniedError";
}
export class EgressDeniedError extends CairnApiError {
  override name = "EgressDeniedError";
}
export class SandboxNotReadyError extends CairnApiError {
  override name = "SandboxNotReadyError";
}
export class ServiceUnavailableError extends CairnApiError {
  override name = "ServiceUnavailableError";
}

const subclasses = {
  quota_exceeded: QuotaExceededError,
  capability_denied: CapabilityDeniedError,
  egress_denied: EgressDeniedError,
  sandbox_not_ready: SandboxNotReadyError,
  service_unavailable: ServiceUnavailableError,
} as const;

/** Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The error for a non-2xx answer. The body's `error.code` and `error.message` when present, else
 * "error" and `HTTP <status>`; `retryable` as the server says, else true exactly for 5xx.
 */
export function toApiError(status: number, headers: Headers, bodyText: string): CairnApiError {
  let envelope: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(bodyText) as { error?: unknown };
    if (parsed && typeof parsed.error === "object" && parsed.error !== null)
      envelope = parsed.error as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's HTML page): the defaults below describe it
  }
  const code = typeof envelope.code === "string" && envelope.code ? envelope.code : "error";
  const fields: ApiErrorFields = {
    statusCode: status,
    code,
    message: typeof envelope.message === "string" && envelope.message ? envelope.message : `HTTP ${status}`,
    retryable: typeof envelope.retryable === "boolean" ? envelope.retryable : status >= 500,
    remediation: typeof envelope.remediation === "string" ? envelope.remediation : null,
    details: envelope.details,
    retryAfterSeconds: parseRetryAfter(headers.get("retry-after")),
    requestId: headers.get("x-request-id"),
  };
  const family = apiErrorType(code, status);
  return family ? new subclasses[family](fields) : new CairnApiError(fields);
}
