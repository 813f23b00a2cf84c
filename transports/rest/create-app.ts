/**
 * The REST transport: a Hono app whose /v1 routes are generated from the registry. It is
 * web-standard (`app.fetch(Request)`), so the Node and Deno entry points serve the same app.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import {
  type ErrorBody,
  isEnabled,
  type Platform,
  ServiceError,
  toServiceError,
  version,
} from "../../core/index.ts";
import { httpStatus } from "../http-status.ts";
import { activityStreamPath, mountActivityStream } from "./activity-stream.ts";
import { isClientAbort } from "./client-abort.ts";
import { mountDocs } from "./docs-page.ts";
import { idempotency } from "./idempotency.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { createOpenApiDocument } from "./openapi.ts";
import { httpOperations, mountOperationRoutes, rateLimitHeaders, routePattern } from "./operation-routes.ts";
import { mountPreviewRoutes } from "./preview-routes.ts";
import { mountProcessStream, processStreamPath } from "./process-stream.ts";
import { isRawUpload, mountRawFileRoutes, rawFileRoutes } from "./raw-file-routes.ts";
import { mountTerminalPage } from "./terminal-page.ts";
import { mountToolRoutes, toolRoutes } from "./tool-routes.ts";

/** How a runtime learns the client address (Node: the socket; Deno: the connection info). */
export type ClientAddress = (request: Request, environment: unknown) => string | undefined;

export interface AppOptions {
  clientIp?: ClientAddress;
  metrics?: Metrics;
  /**
   * Other transports served by this app beside /v1 (the server mounts MCP at /mcp), so they get
   * the same request ids, logging, CORS and body limit; each takes Idempotency-Key itself
   * (`idempotency`) and answers refusals in its own format.
   */
  mounts?: Record<string, Hono<AppEnv>>;
  /** How a mount words a refusal made before it (the body limit), by its path; else the REST envelope. */
  mountErrorResponses?: Record<string, (error: ServiceError, requestId: string) => Response>;
  /** Aborted when the server stops: open event streams (process output) end, so draining does not wait on them. */
  closing?: AbortSignal;
}

type Variables = { requestId: string };
export type AppEnv = { Variables: Variables };

const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** Headers every answer carries besides its X-Request-ID (also those Node answers itself: platform/unparsable-requests.ts). */
export const securityHeaders = {
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
} as const;

export function newRequestId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function errorResponse(error: ServiceError, requestId: string): Response {
  const body: { error: ErrorBody } = { error: error.toBody() };
  return new Response(JSON.stringify(body), {
    status: httpStatus(error.code),
    headers: {
      "content-type": "application/json",
      ...rateLimitHeaders(error.rateLimit, error.retryAfterSeconds),
      "X-Request-ID": requestId,
    },
  });
}

/**
 * Sets headers on the answer already made. Hono's `context.header` would rebuild it as a standard
 * Response (twice per header) to cover answers whose headers cannot change; only those take it.
 */
function setHeaders(context: Context, headers: Record<string, string>): void {
  try {
    for (const [name, value] of Object.entries(headers)) context.res.headers.set(name, value);
  } catch {
    for (const [name, value] of Object.entries(headers)) context.header(name, value);
  }
}

/**
 * How long one read of the storage gauges answers /metrics. Anyone may scrape it, and the reads
 * are counts over whole tables (every account's memories), on the server's thread on SQLite: at
 * most one every 10 seconds, shared by every scrape meanwhile, whatever the scrape rate.
 */
export const storageGaugesMaxAgeMilliseconds = 10_000;

const storageGauges = {
  cairn_sandboxes_active: "Sandbox sessions active now.",
  cairn_memories_stored: "Memories stored, across accounts.",
  cairn_memory_link_jobs_queued: "Written memories whose relation detection has not run yet.",
  cairn_plugin_events_queued: "Plugin hook deliveries not done yet (due, held back or to retry).",
};

export function createApp(platform: Platform, options: AppOptions = {}) {
  const app = new Hono<{ Variables: Variables }>();
  const metrics = options.metrics ?? createMetrics();
  metrics.gauges(
    storageGauges,
    async () => {
      const gauges = await platform.storage.gauges(platform.clock.now());
      return {
        cairn_sandboxes_active: gauges.activeSandboxes,
        cairn_memories_stored: gauges.memoriesStored,
        // Written memories whose relation detection has not run yet (docs/memory.md#writes).
        cairn_memory_link_jobs_queued: gauges.memoryLinkJobsQueued,
        // Hook deliveries waiting, including retries of failing hooks (docs/plugins.md#delivery).
        cairn_plugin_events_queued: await platform.storage.pluginEvents.count(),
      };
    },
    { maxAgeMilliseconds: storageGaugesMaxAgeMilliseconds },
  );
  const { config } = platform;
  // Every route this app serves with its method, for 405 (with `Allow`) against 404.
  const routes: Array<{ method: string; path: string }> = [
    { method: "GET", path: "/health" },
    { method: "GET", path: "/health/ready" },
    { method: "GET", path: "/v1/openapi.json" },
    ...(config.SVC_METRICS_ENABLED ? [{ method: "GET", path: "/metrics" }] : []),
    ...(config.SVC_API_DOCS ? [{ method: "GET", path: "/docs" }] : []),
    ...toolRoutes,
    ...rawFileRoutes,
    { method: "GET", path: processStreamPath },
    { method: "GET", path: activityStreamPath },
    ...httpOperations(platform.tools.tools)
      .filter((tool) => isEnabled(tool, config))
      .map((tool) => tool.http),
  ];
  const knownRoutes = routes.map(({ method, path }) => ({ method, pattern: routePattern(path) }));
  // A fixed path's own methods: DELETE /v1/memory/metrics is a wrong method on /metrics, not a
  // forget of a memory called "metrics".
  const fixedPathMethods = new Map<string, Set<string>>();
  for (const { method, path } of routes)
    if (!path.includes(":"))
      fixedPathMethods.set(path, (fixedPathMethods.get(path) ?? new Set()).add(method));
  const methodNotAllowed = (method: string, path: string, allowed: Iterable<string>, requestId: string) => {
    const response = errorResponse(
      new ServiceError("method_not_allowed", `Method ${method} is not allowed on ${path}`),
      requestId,
    );
    response.headers.set("Allow", [...allowed].join(", "));
    return response;
  };
  const clientIp = (request: Request, environment: unknown) =>
    options.clientIp?.(request, environment) ?? "unknown";

  app.use(async (context, next) => {
    const inbound = context.req.header("X-Request-ID");
    const requestId = inbound && requestIdPattern.test(inbound) ? inbound : newRequestId();
    context.set("requestId", requestId);
    const started = performance.now();
    await next();
    setHeaders(context, { "X-Request-ID": requestId, ...securityHeaders });
    const route = context.req.routePath === "/*" ? "unmatched" : context.req.routePath;
    const seconds = (performance.now() - started) / 1000;
    metrics.observe(context.req.method, route, context.res.status, seconds);
    // The route pattern, not the URL: query strings may carry user text and are never logged.
    platform.logger.info(
      {
        requestId,
        method: context.req.method,
        route,
        status: context.res.status,
        ms: Math.round(seconds * 1000),
      },
      "request",
    );
  });
  if (config.SVC_CORS_ALLOWED_ORIGINS.length > 0) {
    app.use(
      cors({
        origin: config.SVC_CORS_ALLOWED_ORIGINS,
        exposeHeaders: [
          "X-Request-ID",
          "Retry-After",
          "X-RateLimit-Limit",
          "X-RateLimit-Remaining",
          "Mcp-Session-Id",
        ],
      }),
    );
  }
  const tooLarge = (context: Context) => {
    const { path } = context.req;
    const mount = Object.entries(options.mountErrorResponses ?? {}).find(
      ([prefix]) => path === prefix || path.startsWith(`${prefix}/`),
    );
    return (mount?.[1] ?? errorResponse)(
      new ServiceError("payload_too_large", "Request body is too large"),
      context.get("requestId"),
    );
  };
  const limitStream = bodyLimit({ maxSize: config.SVC_MAX_BODY_BYTES, onError: tooLarge });
  // Only a chunked body is counted as it streams in. A GET has none, and a declared length is
  // checked as declared (Node reads no more than it): asking for the body would build a second,
  // standard Request instead of reading it straight from the socket.
  app.use(async (context, next) => {
    const { method } = context.req;
    if (method === "GET" || method === "HEAD") return next();
    // The raw upload streams up to 100 MiB into the sandbox and counts its own bytes.
    if (isRawUpload(method, context.req.path)) return next();
    const length = context.req.header("Content-Length");
    if (length === undefined || context.req.header("Transfer-Encoding") !== undefined)
      return limitStream(context, next);
    if (Number(length) > config.SVC_MAX_BODY_BYTES) return tooLarge(context);
    return next();
  });

  app.use(async (context, next) => {
    const { method, path } = context.req;
    const allowed = fixedPathMethods.get(path);
    const answered = allowed === undefined || allowed.has(method) || method === "OPTIONS";
    if (answered || (method === "HEAD" && allowed.has("GET"))) return next();
    return methodNotAllowed(method, path, allowed, context.get("requestId"));
  });

  app.get("/health", (context) => context.json({ status: "ok" }));
  app.get("/health/ready", async (context) => {
    const healthy = await platform.storage.ping();
    return healthy
      ? context.json({ status: "ready", checks: { database: "ok" } })
      : context.json({ status: "unavailable", checks: { database: "unreachable" } }, 503);
  });
  if (config.SVC_METRICS_ENABLED) {
    app.get("/metrics", async (context) =>
      context.text(await metrics.render(), 200, { "content-type": metrics.contentType }),
    );
  }
  app.use("/v1/*", idempotency(platform, clientIp));
  // A mount takes Idempotency-Key itself, so its refusals come in its own wire format (/mcp: JSON-RPC).
  for (const [path, mount] of Object.entries(options.mounts ?? {})) app.route(path, mount);
  // Built at its first request, not at start-up (about a tenth of a second of JSON Schemas); the
  // schemas do not change while the server runs.
  let openApiDocument: ReturnType<typeof createOpenApiDocument> | undefined;
  app.get("/v1/openapi.json", (context) => {
    openApiDocument ??= createOpenApiDocument(
      version,
      (tool) => isEnabled(tool, config),
      platform.tools.tools,
    );
    return context.json(openApiDocument);
  });
  if (config.SVC_API_DOCS) mountDocs(app);
  mountTerminalPage(app);

  mountToolRoutes(app, platform, { clientIp });
  mountRawFileRoutes(app, platform, { clientIp });
  mountProcessStream(app, platform, { clientIp, closing: options.closing });
  mountActivityStream(app, platform, { clientIp, closing: options.closing });
  mountPreviewRoutes(app, platform);
  mountOperationRoutes(app, platform, { clientIp });

  app.notFound((context) => {
    const path = new URL(context.req.url).pathname;
    const allowed = new Set(
      knownRoutes.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method),
    );
    const requestId = context.get("requestId") ?? newRequestId();
    if (allowed.size === 0) return errorResponse(new ServiceError("not_found", "Not found"), requestId);
    return methodNotAllowed(context.req.method, path, allowed, requestId);
  });
  app.onError((thrown, context) => {
    const requestId = context.get("requestId") ?? newRequestId();
    if (isClientAbort(thrown, context.req.raw)) {
      platform.logger.info(
        { requestId, reason: thrown instanceof Error ? thrown.message : String(thrown) },
        "client closed the connection before sending the whole request body",
      );
      return errorResponse(
        new ServiceError("invalid_json", "Request body was cut off: the client closed the connection"),
        requestId,
      );
    }
    const error = toServiceError(thrown);
    if (httpStatus(error.code) >= 500) {
      platform.logger.error({ requestId, err: error.cause ?? thrown, code: error.code }, "request failed");
    }
    return errorResponse(error, requestId);
  });
  return app;
}
