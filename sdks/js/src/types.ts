/**
 * The SDK's types. The wire types come from generated/types.ts, which `npm run contract` writes from
 * the server's operation registry (a test fails when it is stale), so they cannot drift from what
 * the server validates and returns, and the SDK ships none of the server's code. Results are the
 * REST API's JSON as it is (snake_case fields).
 */
import type { OperationInputs, OperationName, OperationOutputs } from "./generated/types.ts";

export type Input<Name extends OperationName> = OperationInputs[Name];
export type Output<Name extends OperationName> = OperationOutputs[Name];

export type Sandbox = Exclude<Output<"create_sandbox">, readonly unknown[]>;
export type SandboxSize = NonNullable<Input<"create_sandbox">["size"]>;
export type Memory = Output<"get_memory">;
export type MemoryKind = NonNullable<Input<"remember">["kind"]>;
export type ExecResult = Output<"exec">;
/** How file content travels on file_create and view: "utf-8" text or "base64" bytes. */
export type FileEncoding = NonNullable<Input<"view">["encoding"]>;
/** What PUT …/files/raw answers (the raw routes are REST-only, so not in the generated types). */
export interface UploadFileResult {
  path: string;
  size: number;
  created: boolean;
}
export type AllowedCommandRule = Input<"set_allowed_commands">["rules"][number];
export type ImportedMemory = Input<"import_memories">["memories"][number];
export type ImportedRelation = NonNullable<Input<"import_memories">["relations"]>[number];

export interface CreateSandboxOptions {
  label?: string | null;
  size?: SandboxSize;
  storageGb?: number | null;
  lifetimeMinutes?: number | null;
  secretNames?: string[] | null;
  imageId?: string | null;
  mcpConnectionNames?: string[] | null;
  /** Volume id → absolute mount path in the sandbox. */
  volumeMounts?: Record<string, string> | null;
}

export interface RememberOptions {
  scope?: string;
  kind?: MemoryKind;
  metadata?: Record<string, unknown>;
  sourceSessionId?: string | null;
  importance?: number;
}

export interface IngestOptions {
  scope?: string;
  /** The kind of every memory extracted; "auto" (the default) detects it per memory. */
  kind?: Input<"ingest_memory">["kind"];
  sourceSessionId?: string | null;
  metadata?: Record<string, unknown>;
}

export interface ListMemoriesOptions {
  scope?: string;
  includeSuperseded?: boolean;
  limit?: number;
  offset?: number;
}

export interface HttpRequestOptions {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | null;
  /** Seconds; the HTTP call waits this plus 15 s. */
  timeout?: number;
}

export interface CreateImageOptions {
  base?: NonNullable<Input<"create_sandbox_image">["base"]>;
  label?: string | null;
  pythonPackages?: string[];
  aptPackages?: string[];
  npmPackages?: string[];
}

/** One tool of `listTools()`: a built-in operation or a plugin's (`<plugin>.<tool>`). */
export interface ToolDescription {
  /** The name `callTool` takes: `recall`, or `<plugin>.<tool>`. */
  name: string;
  /** The plugin that contributes it; null for a built-in tool. */
  plugin: string | null;
  group: string;
  title: string;
  description: string;
  annotations: { read_only: boolean; destructive: boolean; idempotent: boolean; open_world: boolean };
  /** JSON Schema of the input `callTool` sends. */
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  /** The tool's MCP name; null when MCP does not offer it. */
  mcp_name: string | null;
  /** Its own REST route; null when it has none. */
  http: { method: string; path: string } | null;
}

export interface ToolList {
  tools: ToolDescription[];
}

export interface CallToolOptions {
  /** Sent as `Idempotency-Key`: a repeat with the same key and input replays the first answer. */
  idempotencyKey?: string;
  /** Overrides the wait: by default the client's timeout, or, when the input has a sandbox-side
   * `timeout` in seconds (exec, http_request), that plus 15 s, as `exec` waits. */
  timeoutMs?: number;
}
