/**
 * Deno entry point: `deno task start`. The same platform and the same Hono app as the Node
 * entry; only the server and the client address come from Deno.
 */
import { loadConfig, startSandboxLifecycle } from "../../core/index.ts";
import { createPlatform } from "../../platform/create-platform.ts";
import { createApp } from "./create-app.ts";
import { createLogger } from "./logger.ts";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { hostname: string; port: number; onListen?: (address: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};

const config = loadConfig(Deno.env.toObject());
const logger = createLogger(config);
const platform = await createPlatform(config, { logger });
const app = createApp(platform, {
  clientIp: (_request, environment) =>
    (environment as { remoteAddr?: { hostname: string } }).remoteAddr?.hostname,
});
Deno.serve(
  {
    hostname: config.SVC_HOST,
    port: config.SVC_PORT,
    onListen: ({ port }) => logger.info({ port, runtime: "deno" }, "cairn listening"),
  },
  (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
);
startSandboxLifecycle(platform);
