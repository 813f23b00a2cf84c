/**
 * `/mcp`: the MCP server over streamable HTTP, with the SDK's web-standard transport, as a Hono
 * app that the server mounts beside /v1 (so request ids, logging, CORS, the body limit,
 * idempotency keys and the error envelope are the REST ones).
 *
 * Every request needs an API key, checked by the rules REST uses, before the MCP layer sees it
 * (or, with SVC_MCP_OAUTH_ENABLED, an OAuth access token issued for this /mcp; a 401 then names
 * the resource metadata in `WWW-Authenticate`: transports/oauth/).
 * A POST that initializes opens a session (the `Mcp-Session-Id` header names it; GET opens its
 * event stream, DELETE ends it); the session belongs to the key that opened it, and any other
 * credential is told it does not exist. A POST without a session is served statelessly, and so
 * are the requests of a session the server reclaimed (Reclaimed below).
 * `?tools=memory|sandbox|all|<plugin>` picks the tool profile and `?results=text|structured|both` how
 * results travel (a session keeps those it opened with).
 *
 * A refusal at this door (no key, an unknown session, a reused Idempotency-Key, a foreign Origin)
 * keeps its HTTP status and answers with a JSON-RPC error, the REST error body as its `data`, so
 * an MCP client reads it like any other error. Requests whose Origin is another site's, and on a
 * loopback address those whose Host is not a loopback name, are refused (DNS rebinding).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import {
  authenticateMcpCredential,
  type Config,
  type Platform,
  type Principal,
  ServiceError,
  toServiceError,
} from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";
import { httpStatus } from "../http-status.ts";
import { bearerChallenge, oauthUrls } from "../oauth/oauth-urls.ts";
import { idempotency } from "../rest/idempotency.ts";
import { rateLimitHeaders } from "../rest/operation-routes.ts";
import { requestJson } from "../rest/request-text.ts";
import { createMcpServer, type McpCaller } from "./create-mcp-server.ts";
import { answerMessage, whenSent } from "./post-answers.ts";
import { type ResultMode, resultModes, type ToolProfile, toolProfiles } from "./profiles.ts";

export interface McpAppOptions {
  clientIp(request: Request, environment: unknown): string;
  /** Sessions idle this long are dropped (default 1 hour). */
  sessionIdleMilliseconds?: number;
  /** Sessions one account may hold open; opening one more reclaims its oldest (default 32). */
  sessionsPerAccount?: number;
}

/**
 * What is kept of a session the server reclaimed (the account's limit, or idle): whose it was and
 * how it was opened, so its client's next requests are served statelessly as that session would
 * have served them. The official SDKs do not open a new session after a 404, and agents sharing
 * a key would otherwise break each other's clients for good.
 */
interface Reclaimed {
  accountId: string;
  keyId: string;
  profile: ToolProfile;
  results: ResultMode | undefined;
}

/** Reclaimed sessions remembered per account and in all (the oldest forgotten first; past them, 404). */
const reclaimedPerAccount = 256;
const reclaimedInAll = 10_000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** How it was opened (`?tools=`, `?results=`), kept for its client once it is reclaimed. */
  profile: ToolProfile;
  results: ResultMode | undefined;
  accountId: string;
  /** The id of the API key that opened it. */
  keyId: string;
  lastSeen: number;
  /** Requests of the session being answered now: such a session is reclaimed last. */
  inFlight: number;
}

/** The profile `?tools=` names: a fixed one or a loaded plugin's. */
function profileOf(value: string | undefined, plugins: readonly string[]): ToolProfile {
  if (value === undefined || value === "") return "all";
  const known = [...toolProfiles, ...plugins];
  if (known.includes(value)) return value;
  throw new ServiceError("validation_error", "Invalid request", {
    details: [{ type: "invalid_value", loc: ["query", "tools"], msg: `Must be one of ${known.join(", ")}` }],
  });
}

/** The result mode `?results=` names, if any (profiles.ts). */
function resultsOf(value: string | undefined): ResultMode | undefined {
  if (value === undefined || value === "") return undefined;
  if ((resultModes as readonly string[]).includes(value)) return value as ResultMode;
  throw new ServiceError("validation_error", "Invalid request", {
    details: [
      { type: "invalid_value", loc: ["query", "results"], msg: `Must be one of ${resultModes.join(", ")}` },
    ],
  });
}

/** A GET on a reclaimed session: it has no event stream any more (MCP lets a server offer none). */
const noEventStream = () =>
  new ServiceError(
    "method_not_allowed",
    "This MCP session was reclaimed: its requests are answered, it has no event stream",
  );

const sessionNotFound = () =>
  new ServiceError("not_found", "Unknown or ended MCP session; initialize a new one without Mcp-Session-Id");

/** The JSON-RPC code of a refusal at the door: parse error, invalid params, the SDK's "session not found", or a server error. */
function jsonRpcCode(error: ServiceError): number {
  if (error.code === "invalid_json") return -32700;
  if (error.code === "validation_error") return -32602;
  if (error.code === "not_found") return -32001;
  return -32000;
}

/** A JSON-RPC error answer with the HTTP status and headers the REST envelope would have had. */
function jsonRpcError(
  status: number,
  code: number,
  message: string,
  data: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message, data } }), {
    status,
    headers: { "content-type": "application/json", "X-Request-ID": requestId, ...headers },
  });
}

export function jsonRpcErrorResponse(error: ServiceError, requestId: string): Response {
  return jsonRpcError(
    httpStatus(error.code),
    jsonRpcCode(error),
    error.message,
    error.toBody(),
    requestId,
    rateLimitHeaders(error.rateLimit, error.retryAfterSeconds),
  );
}

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const isLoopback = (hostname: string) => loopbackNames.has(hostname) || hostname.endsWith(".localhost");

/** The host name of a Host header (`name:port`) or an Origin (`scheme://name:port`), or null. */
function hostnameOf(value: string, scheme: boolean): string | null {
  try {
    return new URL(scheme ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
}

/**
 * Why a request may come from a page of another site (DNS rebinding, cross-site requests), or
 * null. Served on a loopback address, the Host must be a loopback name; an Origin, when sent,
 * must be a loopback one there, the request's own host, or one of SVC_CORS_ALLOWED_ORIGINS.
 */
function foreignRequest(request: Request, config: Config): string | null {
  const host = request.headers.get("host");
  const hostName = host === null ? null : hostnameOf(host, false);
  const servedOnLoopback = isLoopback(config.SVC_HOST);
  // No Host at all is no browser's request (an in-process call): only a named foreign host is refused.
  if (servedOnLoopback && host !== null && (hostName === null || !isLoopback(hostName)))
    return `Host ${JSON.stringify(host)} is not a loopback name, and this server listens on ${config.SVC_HOST}`;
  const origin = request.headers.get("origin");
  if (origin === null || config.SVC_CORS_ALLOWED_ORIGINS.includes(origin)) return null;
  const originName = hostnameOf(origin, true);
  if (originName !== null && (originName === hostName || (servedOnLoopback && isLoopback(originName))))
    return null;
  return `Origin ${JSON.stringify(origin)} is not allowed: list it in SVC_CORS_ALLOWED_ORIGINS to call /mcp from that site`;
}

/** Batches were dropped from the protocol in 2025-06-18 (and versions are dates, so they sort as text). */
function batchRefused(request: Request, body: unknown[]): string | null {
  const initialize = body.find(isInitializeRequest);
  const version =
    request.headers.get("mcp-protocol-version") ?? initialize?.params.protocolVersion ?? "2025-03-26";
  return version >= "2025-06-18" ? version : null;
}

export interface McpApp {
  app: Hono<{ Variables: { requestId: string } }>;
  /** Ends every session (and its event stream), so a server can stop without waiting on them. */
  close(): Promise<void>;
}

export function createMcpApp(platform: Platform, options: McpAppOptions): McpApp {
  const app = new Hono<{ Variables: { requestId: string } }>();
  const sessions = new Map<string, Session>();
  const idleMilliseconds = options.sessionIdleMilliseconds ?? 3_600_000;
  const perAccount = options.sessionsPerAccount ?? 32;

  const callerOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }) =>
    extra.authInfo?.extra?.caller as McpCaller;

  const reclaimed = new Map<string, Reclaimed>();

  /** Ends a session the server takes back; its client goes on statelessly (Reclaimed above). */
  function reclaim(id: string, session: Session) {
    sessions.delete(id);
    void session.transport.close();
    const { accountId, keyId, profile, results } = session;
    reclaimed.set(id, { accountId, keyId, profile, results });
    const own = [...reclaimed].filter(([, entry]) => entry.accountId === accountId);
    for (const [oldest] of own.slice(0, Math.max(0, own.length - reclaimedPerAccount)))
      reclaimed.delete(oldest);
    for (const oldest of [...reclaimed.keys()].slice(0, Math.max(0, reclaimed.size - reclaimedInAll)))
      reclaimed.delete(oldest);
  }

  function dropIdleSessions(now: number) {
    for (const [id, session] of sessions) {
      // A session answering a request is not idle, however long that request takes.
      if (session.inFlight === 0 && now - session.lastSeen > idleMilliseconds) reclaim(id, session);
    }
  }

  async function openSession(principal: Principal, profile: ToolProfile, results: ResultMode | undefined) {
    const { accountId, credentialId: keyId } = principal;
    const now = Date.now();
    dropIdleSessions(now);
    // Past the account's limit, idle sessions go first, least recently used first.
    const own = [...sessions]
      .filter(([, session]) => session.accountId === accountId)
      .sort(([, a], [, b]) => Number(a.inFlight > 0) - Number(b.inFlight > 0) || a.lastSeen - b.lastSeen);
    for (const [id, session] of own.slice(0, Math.max(0, own.length - perAccount + 1))) reclaim(id, session);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // SSE, so a call with a progressToken streams; post-answers.ts answers the rest with JSON.
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, profile, results, accountId, keyId, lastSeen: now, inFlight: 0 });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await createMcpServer(platform, { profile, results, caller: callerOf }).connect(transport);
    return transport;
  }

  app.onError((thrown, context) => {
    const error = toServiceError(thrown);
    const requestId = context.get("requestId");
    if (httpStatus(error.code) >= 500)
      platform.logger.error({ requestId, err: error.cause ?? thrown, code: error.code }, "request failed");
    const response = jsonRpcErrorResponse(error, requestId);
    // With OAuth on, a 401 tells an MCP client where to authorize (RFC 9728 §5.1).
    if (platform.config.SVC_MCP_OAUTH_ENABLED && response.status === 401)
      response.headers.set(
        "WWW-Authenticate",
        bearerChallenge(context.req.raw, platform.config, error.code !== "missing_credentials"),
      );
    return response;
  });
  app.use(async (context, next) => {
    const foreign = foreignRequest(context.req.raw, platform.config);
    if (foreign === null) return next();
    return jsonRpcError(403, -32000, foreign, null, context.get("requestId"));
  });
  // Idempotency-Key as on /v1 (a replay, or a refusal answered as JSON-RPC by onError above).
  app.use(idempotency(platform, options.clientIp));

  app.all("/", async (context) => {
    const method = context.req.method;
    if (method !== "GET" && method !== "POST" && method !== "DELETE") {
      throw new ServiceError("method_not_allowed", `Method ${method} is not allowed on /mcp`);
    }
    const credential = bearerCredential(context.req.header("Authorization"));
    const now = platform.clock.now();
    // An API key, or an OAuth access token issued for this very resource (SVC_MCP_OAUTH_ENABLED).
    const resource = oauthUrls(context.req.raw, platform.config).resource;
    const principal = await authenticateMcpCredential(platform, credential, resource, now);
    const caller: McpCaller = {
      credential,
      principal,
      clientIp: options.clientIp(context.req.raw, context.env),
      requestId: context.get("requestId"),
      signal: context.req.raw.signal,
    };
    const authInfo = { token: "", clientId: principal.accountId, scopes: [], extra: { caller } };
    const body = method === "POST" ? await requestJson(context) : undefined;
    if (Array.isArray(body)) {
      const version = batchRefused(context.req.raw, body);
      if (version !== null)
        return jsonRpcError(
          400,
          -32600,
          `JSON-RPC batches are not part of MCP ${version}: send one message per request`,
          null,
          context.get("requestId"),
        );
    }

    const sessionId = context.req.header("Mcp-Session-Id");
    const gone = sessionId === undefined ? undefined : reclaimed.get(sessionId);
    if (sessionId !== undefined && gone?.keyId === principal.credentialId) {
      // A reclaimed session's client goes on statelessly: no event stream to open, an end to forget.
      if (method === "DELETE") {
        reclaimed.delete(sessionId);
        return new Response(null, { status: 200 });
      }
      if (method === "GET") throw noEventStream();
      return serveStatelessly(context.req.raw, body, authInfo, gone.profile, gone.results);
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another key's session is reported exactly like one that never existed.
      if (!session || session.keyId !== principal.credentialId) throw sessionNotFound();
      session.lastSeen = Date.now();
      session.inFlight += 1;
      const settle = () => {
        session.inFlight -= 1;
        session.lastSeen = Date.now();
      };
      let response: Response;
      try {
        response = await answerMessage(session.transport, context.req.raw, body, authInfo);
      } catch (error) {
        settle();
        throw error;
      }
      // A call answered as a stream (progress) is in flight until its answer has been sent; the
      // session's own event stream (GET) is not a call.
      if (method === "POST" && response.headers.get("content-type")?.startsWith("text/event-stream"))
        return whenSent(response, settle);
      settle();
      return response;
    }
    if (method !== "POST") {
      throw new ServiceError(
        "method_not_allowed",
        `${method} /mcp needs the Mcp-Session-Id of an open session`,
      );
    }
    const profile = profileOf(context.req.query("tools"), platform.tools.plugins);
    const results = resultsOf(context.req.query("results"));
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (initializes) {
      const transport = await openSession(principal, profile, results);
      return answerMessage(transport, context.req.raw, body, authInfo);
    }
    return serveStatelessly(context.req.raw, body, authInfo, profile, results);
  });

  /** A server and transport for this request alone. */
  async function serveStatelessly(
    request: Request,
    body: unknown,
    authInfo: Parameters<typeof answerMessage>[3],
    profile: ToolProfile,
    results: ResultMode | undefined,
  ): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: false });
    const server = createMcpServer(platform, { profile, results, caller: callerOf });
    await server.connect(transport);
    const response = await answerMessage(transport, request, body, authInfo).catch((error: unknown) => {
      void server.close();
      throw error;
    });
    // A streamed answer is still being written: the server closes once it has been sent.
    return whenSent(response, () => void server.close());
  }
  return {
    app,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      reclaimed.clear();
      await Promise.all(open.map((session) => session.transport.close()));
    },
  };
}
