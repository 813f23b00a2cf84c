/**
 * The Node runtime: @hono/node-server serves the app, the socket gives the client address, and
 * SIGINT/SIGTERM stop the server in order, draining the requests in flight first. Started by
 * serve.ts.
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { PluginLoadError } from "../core/plugins/plugin-operations.ts";
import { startCairn } from "./start-cairn.ts";

const stop = await startCairn(process.env, {
  name: "node",
  clientIp: (_request, environment) =>
    (environment as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
  listen(fetch, address, logger) {
    // Plain HTTP/1.1: serve() is given no http2 or https options.
    const server = serve({ fetch, ...address }, (info) => {
      logger.info(
        { address: info.address, port: info.port, startupMs: Math.round(performance.now()) },
        "cairn listening",
      );
    }) as Server;
    return {
      close: (deadlineMilliseconds) =>
        new Promise<void>((resolve) => {
          // Refuses new connections and closes idle keep-alive ones; calls back when the last
          // request in flight has been answered.
          server.close(() => resolve());
          const deadline = setTimeout(() => {
            logger.warn(
              { deadlineMilliseconds },
              "requests still in flight at the shutdown deadline were cut",
            );
            server.closeAllConnections();
          }, deadlineMilliseconds);
          deadline.unref();
        }),
    };
  },
}).catch((error: unknown) => {
  // A plugin that cannot load stops the start with its one line (docs/plugins.md#enabling).
  if (!(error instanceof PluginLoadError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stop(signal).then(() => process.exit(0)));
}
