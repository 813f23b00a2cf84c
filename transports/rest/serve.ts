/**
 * Node entry point: `npm start`. Reads SVC_* configuration, builds the platform and serves the
 * REST app (and, later, /mcp) with @hono/node-server.
 */
import { serve } from "@hono/node-server";
import pino from "pino";
import { loadConfig } from "../../core/index.ts";
import { createPlatform } from "../../platform/create-platform.ts";
import { createApp } from "./create-app.ts";

const startedAt = performance.now();
const config = loadConfig(process.env);
const logger = pino({
  level: config.SVC_LOG_LEVEL,
  // Defence in depth: even if a credential reached a log call, these paths are blanked.
  redact: [
    "authorization",
    "password",
    "token",
    "key",
    "*.authorization",
    "*.password",
    "*.access_token",
    "*.key",
  ],
});
const platform = await createPlatform(config, { logger });
const app = createApp(platform, {
  clientIp: (_request, environment) =>
    (environment as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
});
const server = serve({ fetch: app.fetch, hostname: config.SVC_HOST, port: config.SVC_PORT }, (info) => {
  const milliseconds = Math.round(performance.now() - startedAt);
  logger.info({ address: info.address, port: info.port, startupMs: milliseconds }, "cairn listening");
});

async function shutdown(signal: string) {
  logger.info({ signal }, "shutting down");
  server.close();
  await platform.close();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));
