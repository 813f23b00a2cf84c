/**
 * Deno entry point: `deno task start`. The same composition as the Node entry; only the server,
 * the client address and the signals come from Deno.
 */
import { isUpgrade, serveUpgrade, type UpgradeWebSocket } from "./deno-upgrades.ts";
import { startCairn } from "./start-cairn.ts";
import { StartUpFailure } from "./start-up-failure.ts";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
  serve(
    options: { hostname: string; port: number; onListen?: (address: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  upgradeWebSocket: UpgradeWebSocket;
};

// Recall ranks, and patterns match, on the serving thread under Deno (their threads are Node worker threads).
const stop = await startCairn(
  { SVC_MEMORY_SEARCH_THREADS: "0", SVC_PATTERN_THREADS: "0", ...Deno.env.toObject() },
  {
    name: "deno",
    clientIp: (_request, environment) =>
      (environment as { remoteAddr?: { hostname: string } }).remoteAddr?.hostname,
    listen(fetch, address, logger, upgrades) {
      let server: ReturnType<typeof Deno.serve>;
      try {
        server = Deno.serve(
          { ...address, onListen: ({ port }) => logger.info({ port, runtime: "deno" }, "cairn listening") },
          (request, info) =>
            upgrades && isUpgrade(request)
              ? serveUpgrade(request, upgrades, Deno.upgradeWebSocket)
              : fetch(request, { remoteAddr: info.remoteAddr }),
        );
      } catch (error) {
        // Deno binds at once: a port in use throws here (Deno.errors.AddrInUse).
        return { listening: Promise.reject(error), close: async () => {} };
      }
      return {
        listening: Promise.resolve(),
        // shutdown() refuses new connections and waits for the requests in flight; past the
        // deadline the process goes on stopping (its exit ends what is left).
        close: (deadlineMilliseconds) =>
          Promise.race([
            server.shutdown(),
            new Promise<void>((resolve) => setTimeout(resolve, deadlineMilliseconds)),
          ]),
      };
    },
  },
).catch((error: unknown) => {
  // What the user can fix stops the start with one line (docs/configuration.md#when-the-server-does-not-start).
  if (!(error instanceof StartUpFailure)) throw error;
  console.error(error.line);
  return Deno.exit(1);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => void stop(signal).then(() => Deno.exit(0)));
}
