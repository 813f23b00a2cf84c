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
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
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
const server = Deno.serve(
  {
    hostname: config.SVC_HOST,
    port: config.SVC_PORT,
    onListen: ({ port }) => logger.info({ port, runtime: "deno" }, "cairn listening"),
  },
  (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
);
const stopSandboxLifecycle = startSandboxLifecycle(platform);

// As the Node entry does: stop taking requests, then close the platform, which unmounts the
// sandbox disks (left mounted, they would outlive a data directory that is then removed).
let stopping = false;
async function shutdown(signal: "SIGINT" | "SIGTERM") {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  stopSandboxLifecycle();
  await server.shutdown();
  await platform.close();
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", () => void shutdown("SIGINT"));
Deno.addSignalListener("SIGTERM", () => void shutdown("SIGTERM"));
