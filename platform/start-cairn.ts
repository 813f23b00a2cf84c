/**
 * Serving, composed once for every runtime: read SVC_* configuration, build the platform and the
 * app (REST and MCP), let the runtime listen, then reconcile sandboxes and start the reaper.
 * The returned function stops all of it in order. Node and Deno entries differ only in `Runtime`.
 */
import { type Logger, loadConfig, startSandboxLifecycle } from "../core/index.ts";
import type { ClientAddress } from "../transports/rest/create-app.ts";
import { createCairnApp } from "./create-cairn-app.ts";
import { createPlatform } from "./create-platform.ts";
import { lockDataDirectory } from "./data-directory-lock.ts";
import { createLogger } from "./logger.ts";

export type Fetch = (request: Request, environment?: unknown) => Response | Promise<Response>;

export interface Runtime {
  name: string;
  clientIp: ClientAddress;
  /**
   * Starts serving `fetch`. The listener's close stops taking connections at once and resolves
   * when every request in flight has been answered, or once `deadlineMilliseconds` have passed,
   * cutting what is still open.
   */
  listen(
    fetch: Fetch,
    address: { hostname: string; port: number },
    logger: Logger,
  ): { close(deadlineMilliseconds: number): Promise<void> };
}

export async function startCairn(
  environment: Record<string, string | undefined>,
  runtime: Runtime,
): Promise<(signal: string) => Promise<void>> {
  const config = loadConfig(environment);
  const logger = createLogger(config);
  const release = await lockDataDirectory(config.SVC_DATA_DIR);
  const platform = await createPlatform(config, { logger }).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  const app = createCairnApp(platform, { clientIp: runtime.clientIp });
  const listener = runtime.listen(app.fetch, { hostname: config.SVC_HOST, port: config.SVC_PORT }, logger);
  const stopSandboxLifecycle = startSandboxLifecycle(platform);
  let stopping: Promise<void> | undefined;
  return (signal) => {
    stopping ??= (async () => {
      logger.info({ signal, runtime: runtime.name }, "shutting down");
      await stopSandboxLifecycle();
      // Open MCP event streams end first, or the listener would wait on them.
      await app.close();
      // Requests in flight finish (an exec runs to its end) before storage and sandboxes close.
      await listener.close(config.SVC_SHUTDOWN_TIMEOUT_SECONDS * 1000);
      // Closing the platform unmounts the sandbox disks (left mounted, they would outlive a data
      // directory that is then removed).
      await platform.close();
      await release();
    })();
    return stopping;
  };
}
