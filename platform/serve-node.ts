/**
 * The Node runtime: @hono/node-server serves the app, the socket gives the client address, and
 * SIGINT/SIGTERM stop the server in order. Started by serve.ts.
 */
import { serve } from "@hono/node-server";
import { startCairn } from "./start-cairn.ts";

const stop = await startCairn(process.env, {
  name: "node",
  clientIp: (_request, environment) =>
    (environment as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
  listen(fetch, address, logger) {
    const server = serve({ fetch, ...address }, (info) => {
      logger.info(
        { address: info.address, port: info.port, startupMs: Math.round(performance.now()) },
        "cairn listening",
      );
    });
    return {
      close: async () => {
        server.close();
      },
    };
  },
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stop(signal).then(() => process.exit(0)));
}
