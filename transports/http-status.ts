/**
 * The HTTP status of every error code: the one place a code becomes a number (as tRPC's adapters
 * map its codes with `getHTTPStatusCode`). Core knows codes, retryability and remediation only;
 * REST answers with these statuses, MCP shows them in a failed call's text, and the contract
 * scripts write them into sdks/contract/operations.json, the OpenAPI file and docs.
 * Shared by both transports and the scripts, so it imports nothing but core's code type.
 */
import type { ErrorCode } from "../core/index.ts";

// `satisfies Record<ErrorCode, …>`: a code missing here, or one core does not have, fails the build.
export const httpStatuses = {
  validation_error: 422,
  invalid_json: 400,
  malformed_request: 400,
  request_timeout: 408,
  method_not_allowed: 405,
  payload_too_large: 413,
  internal_error: 500,
  not_found: 404,
  rate_limited: 429,
  service_unavailable: 503,
  storage_error: 503,
  sandbox_not_ready: 409,
  missing_credentials: 401,
  wrong_credential_type: 401,
  invalid_api_key: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  email_taken: 409,
  memory_not_found: 404,
  too_many_rules: 400,
  pattern_too_long: 400,
  invalid_pattern: 400,
  invalid_rules: 400,
  command_not_allowed: 403,
  path_outside_sandbox: 403,
  file_not_utf8: 422,
  egress_denied: 403,
  sandbox_operation_failed: 502,
  sandbox_runtime_misconfigured: 409,
  secret_not_found: 404,
  mcp_connection_not_found: 404,
  concurrent_sandbox_limit_reached: 429,
  global_capacity_reached: 429,
  monthly_usage_limit_reached: 429,
  sandbox_size_limit_reached: 429,
  sandbox_storage_limit_reached: 429,
  sandbox_process_limit_reached: 429,
  secret_limit_reached: 429,
  secret_name_taken: 409,
  invalid_allowed_host: 422,
  unsafe_allowed_host: 422,
  image_build_limit_reached: 429,
  global_build_capacity_reached: 429,
  volume_limit_reached: 429,
  volume_in_use: 409,
  snapshot_limit_reached: 429,
  snapshots_not_supported: 409,
  insufficient_role: 403,
  mcp_connection_limit_reached: 429,
  mcp_connection_label_taken: 409,
  lsp_limit_reached: 429,
  background_process_limit_reached: 429,
  process_not_running: 409,
  process_stdin_busy: 409,
  idempotency_key_reuse: 422,
  idempotency_key_in_progress: 409,
} as const satisfies Record<ErrorCode, number>;

/** The HTTP status an error with this code is answered with. */
export function httpStatus(code: ErrorCode): number {
  return httpStatuses[code];
}
