/**
 * cairn-client: the JavaScript SDK for Cairn's REST API (memory, sandboxes, keys, images, volumes,
 * secrets, MCP connections). ESM, no dependencies, web-standard fetch: Node, Deno and browsers.
 */

export type { ActivityEntry } from "./activity-stream.ts";
export {
  type AiSdkHelpers,
  type AiSdkTool,
  type AnthropicTool,
  type CairnToolkit,
  type CairnToolkitOptions,
  createCairnToolkit,
  type OpenAiChatTool,
  type OpenAiResponsesTool,
  selectToolSpecs,
  type ToolCallResult,
  type ToolProfile,
} from "./agent-toolkit.ts";
export { type BaseUrlProblem, checkBaseUrl, defaultBaseUrl, normalizeBaseUrl } from "./base-url.ts";
export { CairnClient, type CairnClientOptions, SandboxSession } from "./client.ts";
export {
  type ApiErrorType,
  apiErrorType,
  CairnApiError,
  CairnConnectionError,
  CairnError,
  CapabilityDeniedError,
  EgressDeniedError,
  QuotaExceededError,
  SandboxNotReadyError,
  ServiceUnavailableError,
} from "./errors.ts";
export type {
  ExecEvent,
  ExecExitEvent,
  ExecOutputEvent,
  ProcessEvent,
  ProcessExitEvent,
  ProcessOutputEvent,
} from "./event-stream.ts";
export type { JsonSchema as ToolJsonSchema, ToolSpec } from "./generated/tool-specs.ts";
export type { RetryOptions } from "./transport.ts";
export type * from "./types.ts";
