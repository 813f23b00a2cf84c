/**
 * The operation manifest, sdks/contract/operations.json: every built-in operation of the registry
 * as data (its REST route, its MCP tool with renames and defaults, its input and output JSON
 * Schemas, the defaults and limits of its fields, the error codes it shares with every operation
 * of its kind). The SDKs' wire types, the CLI's schemas and the parameter tables of the docs are
 * generated from it (scripts/contract/*), so they cannot drift from what the server validates.
 */
import { z } from "zod";
import { type AnyTool, allOperations, type ErrorCode, errorCodes } from "../../core/index.ts";
import { httpStatus } from "../../transports/http-status.ts";
import { mcpTools } from "../../transports/mcp/tools.ts";
import { pathParameters } from "../../transports/rest/operation-routes.ts";
import type { JsonSchema } from "./json-schema.ts";

export interface ManifestHttp {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** With `{name}` parameters, as OpenAPI writes them. */
  path: string;
  status: number;
  /** Where each input field travels: the path, the query string (GET, DELETE) or the JSON body. */
  path_parameters: string[];
  query_parameters: string[];
  body_parameters: string[];
}

export interface ManifestMcp {
  name: string;
  /** Operation field → the tool's argument name. */
  rename: Record<string, string>;
  /** Values the tool sends for fields left out, where the operation would leave them unset. */
  defaults: Record<string, unknown>;
  /** Operation fields the tool does not take. */
  omit: string[];
  /** For an operation that answers nothing: the tool answers `{"status": status, "id": <id_field>}`. */
  done: { status: string; id_field: string } | null;
  /** The tool's result differs from the REST answer (lsp_completion names completion kinds). */
  presents_output: boolean;
  /** The tool's arguments as `tools/list` shows them. */
  input: JsonSchema;
}

/** Bounds of one input field, from its schema (its items' under `items`, a map's keys and values under `keys` and `values`). */
export interface FieldLimits {
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  items?: FieldLimits;
  keys?: FieldLimits;
  values?: FieldLimits;
}

export interface ManifestOperation {
  name: string;
  group: string;
  title: string;
  description: string;
  annotations: { read_only: boolean; destructive: boolean; idempotent: boolean; open_world: boolean };
  auth: "none" | "dashboard" | "api_key";
  rate_limit_bucket: string | null;
  /** The operator can switch it off (its route then answers 404 `not_found`, its tool is gone). */
  switchable: boolean;
  http: ManifestHttp | null;
  mcp: ManifestMcp | null;
  input: JsonSchema;
  output: JsonSchema;
  /** Input field → the value the server uses when it is left out. */
  defaults: Record<string, unknown>;
  limits: Record<string, FieldLimits>;
  /**
   * The error codes every operation with this credential, route and bucket can answer. Codes of
   * the operation's own (`not_found`, quota codes, …) are in docs/api.md.
   */
  errors: string[];
}

export interface Manifest {
  $comment: string;
  errors: Record<string, { status: number; retryable: boolean; remediation: string | null }>;
  operations: ManifestOperation[];
}

const safeIntegerBound = Number.MAX_SAFE_INTEGER;

/**
 * A zod schema as JSON Schema, without the dialect and without the ±2^53 bounds zod writes on
 * every integer (as transports/mcp/tools.ts shows them).
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return JSON.parse(JSON.stringify(rest), (key, value) =>
    (key === "minimum" && value === -safeIntegerBound) || (key === "maximum" && value === safeIntegerBound)
      ? undefined
      : value,
  );
}

const limitKeywords = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "pattern",
] as const;

function limitsOf(schema: JsonSchema | undefined): FieldLimits | undefined {
  if (!schema) return undefined;
  const variants = (schema.anyOf ?? [schema]).filter((variant) => variant.type !== "null");
  if (variants.length !== 1) return undefined;
  const [only] = variants;
  const limits: FieldLimits = {};
  for (const keyword of limitKeywords) {
    if (only[keyword] !== undefined) (limits as Record<string, unknown>)[keyword] = only[keyword];
  }
  const items = limitsOf(only.items);
  if (items) limits.items = items;
  if (only.propertyNames) {
    const keys = limitsOf(only.propertyNames);
    if (keys) limits.keys = keys;
  }
  if (typeof only.additionalProperties === "object") {
    const values = limitsOf(only.additionalProperties);
    if (values) limits.values = values;
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

function commonErrors(tool: AnyTool, input: JsonSchema): string[] {
  const codes: string[] = [];
  if (tool.auth === "api_key") codes.push("missing_credentials", "wrong_credential_type", "invalid_api_key");
  if (tool.auth === "dashboard") codes.push("missing_credentials", "wrong_credential_type", "invalid_token");
  if (Object.keys(input.properties ?? {}).length > 0) codes.push("validation_error");
  const method = tool.http?.method;
  if (method === "POST" || method === "PUT") codes.push("invalid_json", "payload_too_large");
  if (method === "POST") codes.push("idempotency_key_reuse", "idempotency_key_in_progress");
  if (tool.bucket !== null) codes.push("rate_limited");
  if (tool.enabled) codes.push("not_found");
  codes.push("internal_error", "service_unavailable");
  return codes;
}

function httpOf(tool: AnyTool, input: JsonSchema): ManifestHttp | null {
  if (!tool.http) return null;
  const fields = Object.keys(input.properties ?? {});
  const inPath = pathParameters(tool.http.path);
  const rest = fields.filter((field) => !inPath.includes(field));
  const usesQuery = tool.http.method === "GET" || tool.http.method === "DELETE";
  return {
    method: tool.http.method,
    path: tool.http.path.replace(/:([a-z_]+)/g, "{$1}"),
    status: tool.http.status,
    path_parameters: inPath,
    query_parameters: usesQuery ? rest : [],
    body_parameters: usesQuery ? [] : rest,
  };
}

function mcpOf(tool: AnyTool): ManifestMcp | null {
  const binding = tool.mcp;
  if (!binding) return null;
  const presented = mcpTools().find((candidate) => candidate.operation === tool);
  if (!presented) throw new Error(`${tool.name}: an MCP binding but no MCP tool`);
  return {
    name: presented.name,
    rename: { ...binding.rename } as Record<string, string>,
    defaults: { ...binding.defaults },
    omit: [...(binding.omit ?? [])],
    done: binding.done ? { status: binding.done.status, id_field: binding.done.idField } : null,
    presents_output: binding.present !== undefined,
    input: JSON.parse(JSON.stringify(presented.definition.inputSchema)),
  };
}

function operationOf(tool: AnyTool): ManifestOperation {
  const input = toJsonSchema(tool.input, "input");
  const properties = input.properties ?? {};
  const defaults = Object.fromEntries(
    Object.entries(properties).flatMap(([field, schema]) =>
      schema.default === undefined ? [] : [[field, schema.default]],
    ),
  );
  const limits = Object.fromEntries(
    Object.entries(properties).flatMap(([field, schema]) => {
      const found = limitsOf(schema);
      return found ? [[field, found]] : [];
    }),
  );
  const { readOnly, destructive, idempotent, openWorld } = tool.annotations;
  return {
    name: tool.name,
    group: tool.group,
    title: tool.title,
    description: tool.description,
    annotations: { read_only: readOnly, destructive, idempotent, open_world: openWorld },
    auth: tool.auth,
    rate_limit_bucket:
      typeof tool.bucket === "object" && tool.bucket !== null ? tool.bucket.name : tool.bucket,
    switchable: tool.enabled !== undefined,
    http: httpOf(tool, input),
    mcp: mcpOf(tool),
    input,
    output: toJsonSchema(tool.output, "output"),
    defaults,
    limits,
    errors: commonErrors(tool, input),
  };
}

/** The manifest of the built-in operations, in the registry's order. */
export function createManifest(): Manifest {
  return {
    $comment: "Generated by `npm run contract` from the operation registry (core/registry.ts); do not edit.",
    errors: Object.fromEntries(
      Object.entries(errorCodes).map(([code, spec]) => [
        code,
        {
          status: httpStatus(code as ErrorCode),
          retryable: spec.retryable,
          remediation: spec.remediation,
        },
      ]),
    ),
    operations: allOperations.map(operationOf),
  };
}
