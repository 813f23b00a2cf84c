/**
 * One definition per operation. `defineTool` only helps type inference: the registry holds the
 * definitions and every transport (REST, MCP, the in-process caller) walks it.
 */
import type { z } from "zod";
import type { Platform } from "./platform.ts";
import type { Logger } from "./ports/logger.ts";

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

export interface HttpBinding {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Hono-style path with `:name` parameters, which are merged into the input. */
  path: string;
  /** Success status; 204 sends no body. */
  status: number;
}

export interface ToolContext {
  readonly platform: Platform;
  /** From the credential, never from input; null only for `auth: "none"` operations. */
  readonly accountId: string | null;
  readonly requestId: string;
  readonly clientIp: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The request's moment from the platform clock; handlers use it instead of reading time themselves. */
  readonly now: Date;
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: Input;
  output: Output;
  auth: CredentialKind;
  bucket: BucketName | null;
  http: HttpBinding;
  /** Exposed as an MCP tool (CONTRACT.md §3). */
  mcp: boolean;
  handler(context: ToolContext, input: z.output<Input>): Promise<z.input<Output>>;
}

export function defineTool<Input extends z.ZodType, Output extends z.ZodType>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

/** The context of an authenticated handler: its account id is set. */
export function requireAccount(context: ToolContext): string {
  if (!context.accountId) throw new Error(`operation needs an account but ran without one`);
  return context.accountId;
}
