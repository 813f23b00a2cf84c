/**
 * The one error type of Cairn. Every failure a client can see is a ServiceError with a code from
 * the table below; transports render it (REST envelope and headers, MCP isError, CLI exit code)
 * and never invent their own. Anything that is not a ServiceError becomes `internal_error`, or
 * `service_unavailable`/`storage_error` when a dependency failed (dependency-failures.ts).
 * Core knows no transport: each code's HTTP status is the transports' (transports/http-status.ts).
 */
import { dependencyFailure, dependencyRetryAfterSeconds } from "./dependency-failures.ts";

interface CodeSpec {
  readonly retryable: boolean;
  readonly remediation: string | null;
}

const code = (remediation: string | null, retryable = false): CodeSpec => ({ retryable, remediation });

export const errorCodes = {
  validation_error: code("Fix the fields listed in details and send the request again."),
  invalid_json: code("Send a valid JSON body with Content-Type: application/json."),
  // Refused by the HTTP server before any route: a request line or header that is not HTTP/1.1
  // (a raw non-ASCII byte in the URL, a space in a header name, conflicting lengths).
  malformed_request: code(
    "Send valid HTTP/1.1: percent-encode the URL (non-ASCII characters, spaces), and send each header once with a valid name.",
  ),
  // The client sent the request's headers or body too slowly (Node's request timeout).
  request_timeout: code("Send the whole request promptly, then retry.", true),
  method_not_allowed: code("Use one of the methods this route accepts."),
  payload_too_large: code("Send a smaller request body."),
  internal_error: code("Retry later; if it persists, report the X-Request-ID.", true),
  not_found: code("Check the path and the id; objects of other accounts are not visible."),
  rate_limited: code("Wait for Retry-After seconds before retrying.", true),
  service_unavailable: code("Retry later.", true),
  storage_error: code("Retry later.", true),
  sandbox_not_ready: code("Wait for the sandbox to become active, then retry.", true),
  missing_credentials: code("Send Authorization: Bearer <credential>."),
  wrong_credential_type: code(
    "API-key routes need an API key (cairn_…); /v1/api-keys needs a dashboard token from login.",
  ),
  invalid_api_key: code("Create a new API key; this one is unknown, revoked or mistyped."),
  invalid_token: code("Log in again to get a fresh dashboard token."),
  invalid_credentials: code("Check the email and password."),
  email_taken: code("Log in instead, or sign up with another email."),
  memory_not_found: code("Check the memory id; it may have been forgotten or expired."),
  too_many_rules: code("Send at most the allowed number of rules."),
  pattern_too_long: code("Shorten the pattern."),
  invalid_pattern: code("Fix the regular expression."),
  invalid_rules: code("Send at least one valid rule."),
  command_not_allowed: code("Run only commands the account's allowlist permits."),
  path_outside_sandbox: code("Use paths under /workspace, /tmp or a mounted volume."),
  // A text read (view, str_replace) of bytes that are not UTF-8: refused, never shown with U+FFFD.
  file_not_utf8: code(
    'The file is not UTF-8 text: view it with encoding "base64", or download its bytes with GET /v1/sandboxes/{id}/files/raw (cairn cp).',
  ),
  egress_denied: code("Add the host to the secret's allowed_hosts, or use a granted secret."),
  // Not named in the retryable list of docs/errors.md, so the rule for server faults applies: retry.
  sandbox_operation_failed: code("Retry; if it persists, destroy the sandbox and create a new one.", true),
  // The runtime's own cluster refuses it (a missing RBAC grant, a missing namespace): only the
  // operator can fix that, so retrying does not help.
  sandbox_runtime_misconfigured: code(
    "Retrying does not help: the operator must fix the sandbox runtime's configuration named in the message.",
  ),
  secret_not_found: code("Create the secret first, or fix its name."),
  mcp_connection_not_found: code("Create the MCP connection first, or fix its label."),
  concurrent_sandbox_limit_reached: code("Destroy an active sandbox before creating another."),
  global_capacity_reached: code("The deployment is at capacity; retry later.", true),
  monthly_usage_limit_reached: code(
    "Wait for the next calendar month (UTC) or ask the operator for more hours.",
  ),
  sandbox_size_limit_reached: code("Request a smaller size."),
  sandbox_storage_limit_reached: code("Request less storage."),
  // Its own processes use up the sandbox's process limit (its size's): an exec cannot start.
  sandbox_process_limit_reached: code(
    "Wait for the sandbox's other commands to finish or run fewer processes in parallel, or create it with a larger size; details.limit is its size's process limit.",
  ),
  secret_limit_reached: code("Delete a secret you no longer need."),
  secret_name_taken: code("Choose another name or delete the existing secret."),
  invalid_allowed_host: code("Give non-empty host names."),
  unsafe_allowed_host: code("Use a public host name; private, loopback and metadata addresses are refused."),
  image_build_limit_reached: code("Delete an image you no longer need."),
  global_build_capacity_reached: code("Too many builds are running; retry later.", true),
  volume_limit_reached: code("Delete a volume you no longer need."),
  volume_in_use: code("Destroy the sandboxes that mount the volume first."),
  snapshot_limit_reached: code("Delete a snapshot you no longer need."),
  snapshots_not_supported: code("This server's sandbox runtime cannot take or restore snapshots."),
  insufficient_role: code("Use an API key with the admin role (POST /v1/api-keys with role admin)."),
  mcp_connection_limit_reached: code("Delete a connection you no longer need."),
  mcp_connection_label_taken: code("Choose another label."),
  lsp_limit_reached: code("Stop a language server you no longer need."),
  background_process_limit_reached: code(
    "Stop a background process you no longer need, or wait for one to exit; details.limit is the deployment's limit per sandbox.",
  ),
  process_not_running: code("The process has ended or its stdin is closed; start a new one."),
  process_stdin_busy: code(
    "The process has not read the previous input yet; retry once it has (or end it: it may not read stdin).",
    true,
  ),
  idempotency_key_reuse: code("Use a new Idempotency-Key for a different request body."),
  idempotency_key_in_progress: code("Wait for the first request with this key to finish.", true),
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  remediation: string | null;
  details?: unknown;
}

/** A token bucket after a call: capacity, whole tokens left, whole seconds until the next token. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * One entry of a validation_error's details. `loc` is the field's path in the operation's input
 * (`["path"]`, `["rules", "1"]`); a transport prefixes where its request carried the input
 * (REST `"body"`, `"query"` or `"path"`; MCP `"arguments"`).
 */
export interface ValidationIssue {
  type: string;
  loc: string[];
  msg: string;
}

export interface ServiceErrorOptions {
  details?: unknown;
  cause?: unknown;
  /** The bucket that refused the call (rate_limited). */
  rateLimit?: RateLimitState;
  /** Whole seconds after which a retry can succeed (a rate limit, the monthly cap). */
  retryAfterSeconds?: number;
  /** What fixes this failure, when it is more specific than the code's remediation. */
  remediation?: string;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly rateLimit: RateLimitState | null;
  readonly retryAfterSeconds: number | null;
  readonly remediation: string | null;

  constructor(errorCode: ErrorCode, message: string, options: ServiceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "ServiceError";
    this.code = errorCode;
    this.details = options.details;
    this.rateLimit = options.rateLimit ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds ?? options.rateLimit?.retryAfterSeconds ?? null;
    this.remediation = options.remediation ?? errorCodes[errorCode].remediation;
  }

  toBody(): ErrorBody {
    const spec = errorCodes[this.code];
    const body: ErrorBody = {
      code: this.code,
      message: this.message,
      retryable: spec.retryable,
      remediation: this.remediation,
    };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

const dependencyMessages = {
  service_unavailable: "The database is unavailable; retry shortly",
  storage_error: "The server's storage is full or failing; retry later",
} as const;

/**
 * Turns anything thrown into a ServiceError: an unreachable database or a full disk becomes a
 * retryable service_unavailable or storage_error with a retry delay (dependency-failures.ts); anything else unknown becomes
 * internal_error. The cause is kept for logs in both cases, never sent.
 */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const failure = dependencyFailure(error);
  if (failure) {
    return new ServiceError(failure, dependencyMessages[failure], {
      cause: error,
      retryAfterSeconds: dependencyRetryAfterSeconds[failure],
    });
  }
  return new ServiceError("internal_error", "Internal server error", { cause: error });
}

export const notFound = (what = "Not found"): ServiceError => new ServiceError("not_found", what);
