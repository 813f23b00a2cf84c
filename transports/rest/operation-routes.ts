/**
 * The /v1 routes, one per registry operation with an `http` binding. Everything HTTP-specific
 * about an operation lives here: the credential of its `Authorization` header, where its fields
 * come from (path, query string, JSON body), turning query-string text into the numbers and
 * booleans its schema asks for, naming a bad field's location, rate-limit headers, and the order
 * routes are tried in.
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import {
  type AnyTool,
  allOperations,
  type HttpBinding,
  invoke,
  isEnabled,
  type Platform,
  type RateLimitState,
  ServiceError,
  type ValidationIssue,
} from "../../core/index.ts";
import { jsonInSlices, writesInSlices } from "./json-answer.ts";
import { acceptsEventStream, answerStreamed } from "./output-stream.ts";
import { requestCaller } from "./request-caller.ts";
import { requestJson, requestText } from "./request-text.ts";

export type HttpOperation = AnyTool & { http: HttpBinding };

type Source = "path" | "query" | "body";

const usesQuery = (binding: HttpBinding) => binding.method === "GET" || binding.method === "DELETE";

export function pathParameters(path: string): string[] {
  return [...path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]);
}

/** A path pattern's matcher, to tell an unknown route (404) from a wrong method (405). */
export function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z_]+/g, "[^/]+")}$`);
}

/**
 * Routes in the order they must be tried: at the first segment where two paths differ, a fixed
 * segment comes before a parameter, so /v1/memory/search is never taken for /v1/memory/:memory_id.
 */
export function httpOperations(operations: readonly AnyTool[] = allOperations): HttpOperation[] {
  const withBinding = operations.filter((tool): tool is HttpOperation => tool.http !== undefined);
  return withBinding.toSorted((first, second) => {
    const a = first.http.path.split("/");
    const b = second.http.path.split("/");
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const aIsParameter = a[index].startsWith(":");
      const bIsParameter = b[index].startsWith(":");
      if (aIsParameter !== bIsParameter) return aIsParameter ? 1 : -1;
      if (a[index] !== b[index]) return 0;
    }
    return 0;
  });
}

/** The JSON Schema type names a field accepts, for reading it from a query string. */
function queryFieldTypes(tool: AnyTool): Map<string, Set<string>> {
  const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, { type?: string | string[]; anyOf?: Array<{ type?: string }> }>;
  };
  const types = new Map<string, Set<string>>();
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const names = [property.type, ...(property.anyOf ?? []).map((option) => option.type)].flat();
    types.set(name, new Set(names.filter((type): type is string => typeof type === "string")));
  }
  return types;
}

const integerText = /^-?\d+$/;
const numberText = /^-?\d+(\.\d+)?$/;
const booleanText: Record<string, boolean> = { true: true, false: false, "1": true, "0": false };

/**
 * A query-string value as its field's type: "10" for an integer field is 10, "false" for a
 * boolean is false. Text that is no such value stays text, and the schema reports the field.
 */
function fromQueryText(value: string, types: Set<string> | undefined): unknown {
  if (!types) return value;
  if (types.has("integer") && integerText.test(value)) return Number(value);
  if (types.has("number") && numberText.test(value)) return Number(value);
  if (types.has("boolean") && value in booleanText) return booleanText[value];
  return value;
}

async function readInput(
  context: Context,
  tool: HttpOperation,
  fieldTypes: Map<string, Set<string>>,
): Promise<unknown> {
  // Path parameters are text too: "8000" for an integer field (a preview's port) is 8000.
  const parameters: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(context.req.param() as Record<string, string>)) {
    parameters[name] = fromQueryText(value, fieldTypes.get(name));
  }
  if (usesQuery(tool.http)) {
    const query: Record<string, unknown> = {};
    for (const [name, value] of new URL(context.req.url).searchParams) {
      query[name] ??= fromQueryText(value, fieldTypes.get(name));
    }
    return { ...query, ...parameters };
  }
  const body = await readJsonBody(context);
  // A non-object body is left to the schema, which reports it as a validation error.
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  // Onto the parsed body, not into a copy: copying 1.5 million members held the thread for 2.8 s.
  return Object.assign(body, parameters);
}

/**
 * Core locates a bad field by its path in the operation's input ([field, …]); REST says where the
 * client sent it: in the path, the query string or the body of the operation's own route, or
 * (`fromBody`) all in the body of POST /v1/tools/{name}.
 */
export function locateIssues(error: ServiceError, tool: AnyTool, fromBody: boolean): ServiceError {
  if (error.code !== "validation_error" || !Array.isArray(error.details)) return error;
  const inPath = new Set(fromBody || !tool.http ? [] : pathParameters(tool.http.path));
  const source: Source = !fromBody && tool.http && usesQuery(tool.http) ? "query" : "body";
  const details = (error.details as ValidationIssue[]).map((issue) => {
    const field = issue.loc[0];
    return { ...issue, loc: [field !== undefined && inPath.has(field) ? "path" : source, ...issue.loc] };
  });
  return new ServiceError("validation_error", error.message, { details });
}

/** X-RateLimit-* on every rate-limited answer; Retry-After when waiting helps. */
export function rateLimitHeaders(
  rateLimit: RateLimitState | null,
  retryAfterSeconds: number | null = null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (rateLimit) {
    headers["X-RateLimit-Limit"] = String(rateLimit.limit);
    headers["X-RateLimit-Remaining"] = String(rateLimit.remaining);
  }
  if (retryAfterSeconds !== null && retryAfterSeconds > 0) headers["Retry-After"] = String(retryAfterSeconds);
  return headers;
}

export interface OperationRouteOptions {
  clientIp(request: Request, environment: unknown): string;
}

/**
 * Runs an operation for a request through core's pipeline and answers as REST does: the
 * operation's status and JSON output with rate-limit headers, or (`asJson`, POST /v1/tools/{name})
 * always 200, with `{}` where the route itself answers 204.
 */
export async function answerOperation(
  context: Context<{ Variables: { requestId: string } }>,
  platform: Platform,
  tool: AnyTool,
  input: unknown,
  options: OperationRouteOptions & { asJson: boolean },
): Promise<Response> {
  let result: Awaited<ReturnType<typeof invoke>>;
  try {
    result = await invoke(platform, tool, { ...requestCaller(context, options), input });
  } catch (error) {
    throw error instanceof ServiceError ? locateIssues(error, tool, options.asJson) : error;
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(result.rateLimit))) {
    context.header(name, value);
  }
  const output = options.asJson ? (result.output ?? {}) : result.output;
  const status = options.asJson ? 200 : (tool.http?.status ?? 200);
  if (status === 204) return context.body(null, 204);
  // A long answer (an import's 500 memories) is written in slices, not held in one stringify.
  if (writesInSlices(output))
    return context.body(jsonInSlices(output), status as 200, { "content-type": "application/json" });
  return context.json(output as object, status as 200);
}

/** A POST body as an operation's input: JSON, where empty is `{}`. */
export async function readJsonBody(context: Context): Promise<unknown> {
  // Hono's body cache holds the text, so the idempotency layer and this read share one body.
  const text = await requestText(context);
  if (text.trim() === "") return {};
  return requestJson(context);
}

export function mountOperationRoutes(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
  options: OperationRouteOptions,
): void {
  for (const tool of httpOperations(platform.tools.tools)) {
    // A switched-off operation gets no route: it answers 404 like any unknown path.
    if (!isEnabled(tool, platform.config)) continue;
    const fieldTypes =
      usesQuery(tool.http) || pathParameters(tool.http.path).length > 0
        ? queryFieldTypes(tool)
        : new Map<string, Set<string>>();
    const method = tool.http.method.toLowerCase() as "get" | "post" | "put" | "delete";
    app[method](tool.http.path, async (context) => {
      const input = await readInput(context, tool, fieldTypes);
      if (tool.streamsOutput && acceptsEventStream(context.req.header("Accept"))) {
        const locate = (error: ServiceError) => locateIssues(error, tool, false);
        return answerStreamed(context, platform, tool, input, { ...options, locate, rateLimitHeaders });
      }
      return answerOperation(context, platform, tool, input, { ...options, asJson: false });
    });
  }
}
