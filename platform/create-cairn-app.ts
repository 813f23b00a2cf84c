/**
 * The one HTTP app Cairn serves: the REST transport with the MCP transport mounted at /mcp.
 * Entry points (Node, Deno) and tests build it here, so every runtime serves the same routes.
 */
import type { Platform } from "../core/index.ts";
import { createMcpApp, jsonRpcErrorResponse } from "../transports/mcp/http.ts";
import { createOAuthApps, oauthMountErrorResponse } from "../transports/oauth/oauth-app.ts";
import { type ClientAddress, createApp } from "../transports/rest/create-app.ts";
import type { Metrics } from "../transports/rest/metrics.ts";
import { createUpgrades } from "../transports/rest/upgrades.ts";

export interface CairnAppOptions {
  clientIp?: ClientAddress;
  metrics?: Metrics;
}

export function createCairnApp(platform: Platform, options: CairnAppOptions = {}) {
  const clientIp = (request: Request, environment: unknown) =>
    options.clientIp?.(request, environment) ?? "unknown";
  const mcp = createMcpApp(platform, { clientIp });
  // The OAuth authorization server for /mcp, only while it is turned on (else its paths are 404).
  const oauth = platform.config.SVC_MCP_OAUTH_ENABLED ? createOAuthApps(platform, { clientIp }) : null;
  const closing = new AbortController();
  const app = createApp(platform, {
    ...options,
    mounts: {
      "/mcp": mcp.app,
      ...(oauth ? { "/.well-known": oauth.wellKnown, "/oauth": oauth.oauth } : {}),
    },
    mountErrorResponses: {
      "/mcp": jsonRpcErrorResponse,
      ...(oauth ? { "/oauth": oauthMountErrorResponse } : {}),
    },
    closing: closing.signal,
  });
  const close = () => {
    // Process output streams end too: a client resumes them from its last event id.
    closing.abort();
    return mcp.close();
  };
  // WebSockets (the takeover terminal) and previews' upgrades, for entries that can serve them.
  return { app, fetch: app.fetch, upgrades: createUpgrades(platform), close };
}

export type CairnApp = ReturnType<typeof createCairnApp>;
