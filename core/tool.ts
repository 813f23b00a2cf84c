/**
 * One definition per operation. `defineTool` only helps type inference: the registry holds the
 * definitions and every transport (REST, MCP, the in-process caller) walks it. A definition says
 * what the operation is (name, group, title, description, annotations, schemas, credential,
 * bucket, the ports it uses) and, in an optional binding per transport, only what that transport
 * needs to know.
 */
import type { z } from "zod";
import type { Config } from "./config.ts";
import { ServiceError } from "./errors.ts";
import type { PlatformServices } from "./platform-services.ts";
import type { Logger } from "./ports/logger.ts";
import type { ApiKeyRole } from "./ports/storage.ts";

export type CredentialKind = "none" | "dashboard" | "api_key";

export type BucketName =
  | "signup"
  | "login"
  | "sandbox_lifecycle"
  | "sandbox_ops"
  | "secret_ops"
  | "mcp_connection_ops"
  | "image_build_ops"
  | "volume_ops"
  | "memory_ops";

/**
 * A bucket a plugin declares for its tools: a name (namespaced by the plugin when it loads, so
 * no plugin shares a built-in's or another plugin's tokens) and the requests per minute it allows.
 */
export interface DeclaredBucket {
  name: string;
  perMinute: number;
}

/** Where an operation belongs: tool profiles, CLI command groups and SDK modules follow it. */
export type ToolGroup =
  | "auth"
  | "api_keys"
  | "account"
  | "allowlist"
  | "secrets"
  | "sandboxes"
  | "files"
  | "images"
  | "volumes"
  | "mcp_connections"
  | "lsp"
  | "processes"
  | "memory"
  | "plugins";

/** What a client (a model first of all) may assume about calling the operation. */
export interface ToolAnnotations {
  /** Changes nothing. */
  readOnly: boolean;
  /** May delete or overwrite something the caller made before. */
  destructive: boolean;
  /** A second call with the same input has no further effect. */
  idempotent: boolean;
  /** Reaches the world outside Cairn (hosts on the internet). */
  openWorld: boolean;
}

export interface HttpBinding {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** A path with `:name` parameters, which are merged into the input. */
  path: string;
  /** Success status; 204 sends no body. */
  status: number;
}

type FieldName<Input extends z.ZodObject> = keyof Input["shape"] & string;

/** How the operation appears as an MCP tool, where that differs from the operation itself. */
export interface McpBinding<Input extends z.ZodObject = z.ZodObject> {
  /** The tool's name when it is not the operation's. */
  name?: string;
  /** Input fields the tool calls by another name, e.g. `{ q: "query" }`. */
  rename?: Partial<Record<FieldName<Input>, string>>;
  /** Values the tool sends for fields the operation leaves optional, e.g. `{ scope: "default" }`. */
  defaults?: Partial<Record<FieldName<Input>, unknown>>;
  /** Input fields the tool does not accept (an agent cannot grant itself secrets). */
  omit?: readonly FieldName<Input>[];
  /**
   * Input fields the tool's description already explains (`eof`, `replace_all`): tools/list shows
   * them without their own description, which REST and `--help` keep.
   */
  saidByTool?: readonly FieldName<Input>[];
  /**
   * For an operation that answers nothing (REST 204): the tool answers
   * `{"status": status, "id": <the value of the input field idField>}` instead.
   */
  done?: { status: string; idField: FieldName<Input> };
  /**
   * The tool's result from the operation's output, where the tool shows it differently from
   * REST (lsp_completion names completion kinds). Keeps the output's top-level fields.
   */
  present?(output: unknown): unknown;
  /**
   * Why an answer REST gives as a 200 is a failed call to a model (grep's `error`: an invalid
   * pattern, its time budget), or null: the tool then answers `isError` with that reason as its
   * text, the answer itself still its structured content.
   */
  failure?(output: unknown): string | null;
}

/**
 * What a streaming operation (`ToolDefinition.streamsOutput`) reports while it runs: `started`
 * once its checks have passed and the work has begun (a failure before it is the call's error; one
 * after it ends a stream), then each piece of `output` as it comes.
 */
export type ToolProgress =
  | { kind: "started" }
  | { kind: "output"; stream: "stdout" | "stderr"; text: string };

/** A name of a port or service an operation may declare in `uses`. */
export type PlatformServiceName = keyof PlatformServices;

/**
 * What a handler receives. `Uses` names the ports and services its operation declares; a helper
 * that takes a context names just those it reaches (`ToolContext<"storage">`), and one that
 * reaches none takes a plain `ToolContext`.
 */
export interface ToolContext<Uses extends PlatformServiceName = never> {
  /**
   * The ports and services the operation declared in `uses`, and no others: invoke hands over an
   * object holding only those, so an undeclared one is a type error and `undefined` at run time.
   */
  readonly platform: Pick<PlatformServices, Uses>;
  /** From the credential, never from input; null only for `auth: "none"` operations. */
  readonly accountId: string | null;
  /** The API key's id (the account id for a dashboard token); null without a credential. */
  readonly credentialId?: string | null;
  /** The API key's role (docs/api.md#api-key-roles); `admin` for other credentials. */
  readonly role?: ApiKeyRole;
  readonly requestId: string;
  readonly clientIp: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The request's moment from the platform clock; handlers use it instead of reading time themselves. */
  readonly now: Date;
  /**
   * Set when the caller streams the call (REST `Accept: text/event-stream`, an MCP `progressToken`)
   * and the operation `streamsOutput`; absent otherwise.
   */
  readonly reportProgress?: (progress: ToolProgress) => void;
}

export interface ToolDefinition<
  Name extends string = string,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
  Uses extends readonly PlatformServiceName[] = readonly [],
> {
  name: Name;
  group: ToolGroup;
  /** A short human title ("Recall memories"). */
  title: string;
  /** For a model and a human reading `--help`: what it does, when to use it, what to do next. */
  description: string;
  annotations: ToolAnnotations;
  /** Every field carries a `.describe()`; test/registry.test.ts checks it. */
  input: Input;
  output: Output;
  auth: CredentialKind;
  /** `admin`: a `member` API key is refused with 403 `insufficient_role` before anything runs. */
  role?: "admin";
  bucket: BucketName | DeclaredBucket | null;
  /**
   * The operation reports its output as it runs (`context.reportProgress`): REST answers it as
   * Server-Sent Events when the request accepts `text/event-stream`, MCP as `notifications/progress`
   * when the call carries a `progressToken`. Its JSON answer is the same either way.
   */
  streamsOutput?: boolean;
  /** The plugin that contributed the operation (docs/plugins.md); absent for built-in ones. */
  plugin?: string;
  http?: HttpBinding;
  /** Present when the operation is an MCP tool. */
  mcp?: McpBinding<Input>;
  /**
   * For an operation the operator can switch off (SVC_VOLUMES_ENABLED and the like): false makes
   * its route answer 404 `not_found` like an unknown one and drops its MCP tool.
   */
  enabled?(config: Config): boolean;
  /**
   * The ports and services of `PlatformServices` the handler and the helpers it calls reach, e.g.
   * `["storage", "memoryWriter"]`: its `context.platform` holds only these (docs/architecture.md).
   */
  uses: Uses;
  handler(context: ToolContext<Uses[number]>, input: z.output<Input>): Promise<z.input<Output>>;
}

/** Any operation of the registry, for code that walks all of them. */
// biome-ignore lint/suspicious/noExplicitAny: zod object types are invariant in their shape, so only `any` admits every operation.
export type AnyTool = ToolDefinition<string, any, z.ZodType, readonly PlatformServiceName[]>;

/**
 * A built-in operation. A plugin's tool is written with the `defineTool` of core/plugin.ts, which
 * also takes this shape.
 */
export function defineTool<
  const Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodType,
  const Uses extends readonly PlatformServiceName[] = readonly [],
>(definition: ToolDefinition<Name, Input, Output, Uses>): ToolDefinition<Name, Input, Output, Uses> {
  return definition;
}

/**
 * The operations a deployment serves: the built-in ones (registry.ts), then those of the plugins
 * it loaded at start (docs/plugins.md). The platform holds one; every transport walks it.
 */
export interface ToolRegistry {
  /** In order: built-ins as registry.ts lists them, then each plugin's tools in the order it declares them. */
  readonly tools: readonly AnyTool[];
  /** The names of the loaded plugins, in load order. */
  readonly plugins: readonly string[];
  find(name: string): AnyTool | undefined;
}

/** Whether the deployment offers the operation (see `ToolDefinition.enabled`). */
export function isEnabled(tool: AnyTool, config: Config): boolean {
  return tool.enabled?.(config) ?? true;
}

/** Refuses a `member` key: 403 `insufficient_role`. */
export function requireAdminRole(role: ApiKeyRole): void {
  if (role !== "admin")
    throw new ServiceError("insufficient_role", "This needs an API key with the admin role", {
      details: { required_role: "admin", role },
    });
}

/**
 * For a handler that needs an admin key only in some cases (an operation that always does says
 * `role: "admin"` on its definition, which invoke checks).
 */
export function requireAdminKey(context: ToolContext): void {
  requireAdminRole(context.role ?? "admin");
}

/** The context of an authenticated handler: its account id is set. */
export function requireAccount(context: ToolContext): string {
  if (!context.accountId) throw new Error(`operation needs an account but ran without one`);
  return context.accountId;
}
