/**
 * `/mcp`: the MCP server over streamable HTTP, with the SDK's web-standard transport, as a Hono
 * app that the server mounts beside /v1 (so request ids, logging, CORS, the body limit,
 * idempotency keys and the error envelope are the REST ones).
 *
 * Every request needs an API key, checked by the rules REST uses, before the MCP layer sees it.
 * A POST that initializes opens a session (the `Mcp-Session-Id` header names it; GET opens its
 * event stream, DELETE ends it); the session belongs to the key that opened it, and any other
 * credential is told it does not exist. A POST without a session is served statelessly.
 * `?tools=memory|sandbox|all|<plugin>` picks the tool profile (a session keeps the one it opened with).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { authenticate, type Platform, type Principal, ServiceError } from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";
import { createMcpServer, type McpCaller } from "./create-mcp-server.ts";
import { type ToolProfile, toolProfiles } from "./profiles.ts";

export interface McpAppOptions {
  clientIp(request: Request, environment: unknown): string;
  /** Sessions idle this long are dropped (default 1 hour). */
  sessionIdleMilliseconds?: number;
  /** Sessions one account may hold open; opening one more closes its oldest (default 32). */
  sessionsPerAccount?: number;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  accountId: string;
  /** The id of the API key that opened it. */
  keyId: string;
  lastSeen: number;
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

async function jsonBody(context: Context): Promise<unknown> {
  try {
    return JSON.parse(await context.req.text());
  } catch {
    throw new ServiceError("invalid_json", "Request body is not valid JSON");
  }
}

const sessionNotFound = () =>
  new ServiceError("not_found", "Unknown or ended MCP session; initialize a new one without Mcp-Session-Id");

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

  function dropIdleSessions(now: number) {
    for (const [id, session] of sessions) {
      if (now - session.lastSeen > idleMilliseconds) {
        sessions.delete(id);
        void session.transport.close();
      }
    }
  }

  async function openSession(principal: Principal, profile: ToolProfile) {
    const { accountId, credentialId: keyId } = principal;
    const now = Date.now();
    dropIdleSessions(now);
    const own = [...sessions].filter(([, session]) => session.accountId === accountId);
    for (const [id, session] of own.slice(0, Math.max(0, own.length - perAccount + 1))) {
      sessions.delete(id);
      void session.transport.close();
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, accountId, keyId, lastSeen: now });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await createMcpServer(platform, { profile, caller: callerOf }).connect(transport);
    return transport;
  }

  app.all("/", async (context) => {
    const method = context.req.method;
    if (method !== "GET" && method !== "POST" && method !== "DELETE") {
      throw new ServiceError("method_not_allowed", `Method ${method} is not allowed on /mcp`);
    }
    const credential = bearerCredential(context.req.header("Authorization"));
    const now = platform.clock.now();
    const principal = (await authenticate(platform, "api_key", credential, now)) as Principal;
    const caller: McpCaller = {
      credential,
      principal,
      clientIp: options.clientIp(context.req.raw, context.env),
      requestId: context.get("requestId"),
    };
    const authInfo = { token: "", clientId: principal.accountId, scopes: [], extra: { caller } };
    const body = method === "POST" ? await jsonBody(context) : undefined;

    const sessionId = context.req.header("Mcp-Session-Id");
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another key's session is reported exactly like one that never existed.
      if (!session || session.keyId !== principal.credentialId) throw sessionNotFound();
      session.lastSeen = Date.now();
      return session.transport.handleRequest(context.req.raw, { parsedBody: body, authInfo });
    }
    if (method !== "POST") {
      throw new ServiceError(
        "method_not_allowed",
        `${method} /mcp needs the Mcp-Session-Id of an open session`,
      );
    }
    const profile = profileOf(context.req.query("tools"), platform.tools.plugins);
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (initializes) {
      const transport = await openSession(principal, profile);
      return transport.handleRequest(context.req.raw, { parsedBody: body, authInfo });
    }
    // Stateless: a server and transport for this request alone.
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    const server = createMcpServer(platform, { profile, caller: callerOf });
    await server.connect(transport);
    try {
      return await transport.handleRequest(context.req.raw, { parsedBody: body, authInfo });
    } finally {
      void server.close();
    }
  });
  return {
    app,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close()));
    },
  };
}
