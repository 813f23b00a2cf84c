/**
 * The Node server: reads SVC_* configuration, builds the platform, serves the REST app with
 * @hono/node-server, then reconciles sandboxes and starts the reaper. Started by serve.ts.
 */
import { serve } from "@hono/node-server";
import { loadConfig, startSandboxLifecycle } from "../../core/index.ts";
import { createPlatform } from "../../platform/create-platform.ts";
import { createApp } from "./create-app.ts";
import { createLogger } from "./logger.ts";

const config = loadConfig(process.env);
const logger = createLogger(config);
const platform = await createPlatform(config, { logger });
const app = createApp(platform, {
  clientIp: (_request, environment) =>
    (environment as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
});
const server = serve({ fetch: app.fetch, hostname: config.SVC_HOST, port: config.SVC_PORT }, (info) => {
  logger.info(
    { address: info.address, port: info.port, startupMs: Math.round(performance.now()) },
    "cairn listening",
  );
});
const stopSandboxLifecycle = startSandboxLifecycle(platform);

async function shutdown(signal: string) {
  logger.info({ signal }, "shutting down");
  stopSandboxLifecycle();
  server.close();
  await platform.close();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));
