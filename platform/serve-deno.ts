/**
 * Deno entry point: `deno task start`. The same composition as the Node entry; only the server,
 * the client address and the signals come from Deno.
 */
import { PluginLoadError } from "../core/plugins/plugin-operations.ts";
import { DataDirectoryBusy } from "./data-directory-lock.ts";
import { startCairn } from "./start-cairn.ts";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
  serve(
    options: { hostname: string; port: number; onListen?: (address: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};

// Recall ranks, and patterns match, on the serving thread under Deno (their threads are Node worker threads).
const stop = await startCairn(
  { SVC_MEMORY_SEARCH_THREADS: "0", SVC_PATTERN_THREADS: "0", ...Deno.env.toObject() },
  {
    name: "deno",
    clientIp: (_request, environment) =>
      (environment as { remoteAddr?: { hostname: string } }).remoteAddr?.hostname,
    listen(fetch, address, logger) {
      const server = Deno.serve(
        { ...address, onListen: ({ port }) => logger.info({ port, runtime: "deno" }, "cairn listening") },
        (request, info) => fetch(request, { remoteAddr: info.remoteAddr }),
      );
      return {
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
  // A plugin that cannot load, or a data directory another process serves, stops the start with
  // one line (docs/plugins.md#enabling).
  if (error instanceof DataDirectoryBusy) {
    console.error(error.line);
    return Deno.exit(1);
  }
  if (!(error instanceof PluginLoadError)) throw error;
  console.error(error.message);
  return Deno.exit(1);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => void stop(signal).then(() => Deno.exit(0)));
}
