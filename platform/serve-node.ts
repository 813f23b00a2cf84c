/**
 * The Node runtime: @hono/node-server serves the app, the socket gives the client address, and
 * SIGINT/SIGTERM stop the server in order, draining the requests in flight first. Started by
 * serve.ts.
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { trimHeapWhenIdle } from "../lib/idle-heap-trim/index.ts";
import { attachUpgrades } from "./node-upgrades.ts";
import { startCairn } from "./start-cairn.ts";
import { StartUpFailure } from "./start-up-failure.ts";
import { answerUnparsable } from "./unparsable-requests.ts";

const stop = await startCairn(process.env, {
  name: "node",
  clientIp: (_request, environment) =>
    (environment as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
  listen(fetch, address, logger, upgrades) {
    // Plain HTTP/1.1: serve() is given no http2 or https options.
    const server = serve({ fetch, ...address }, (info) => {
      logger.info(
        { address: info.address, port: info.port, startupMs: Math.round(performance.now()) },
        "cairn listening",
      );
    }) as Server;
    server.on("clientError", answerUnparsable);
    if (upgrades) attachUpgrades(server, upgrades);
    // A port in use or an address not this machine's rejects the start (start-up-failure.ts).
    const listening = new Promise<void>((resolve, reject) => {
      server.once("listening", () => {
        server.off("error", reject);
        resolve();
      });
      server.once("error", reject);
    });
    return {
      listening,
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
  // What the user can fix (a setting, the port, the data directory, the database, a plugin that
  // cannot load) stops the start with one line (docs/configuration.md#when-the-server-does-not-start).
  if (!(error instanceof StartUpFailure)) throw error;
  process.stderr.write(`${error.line}\n`);
  process.exit(1);
});

trimHeapWhenIdle();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stop(signal).then(() => process.exit(0)));
}
