/**
 * Serving, composed once for every runtime: read SVC_* configuration, build the platform and the
 * app (REST and MCP), let the runtime listen, then reconcile sandboxes and start the reaper.
 * The returned function stops all of it in order. Node and Deno entries differ only in `Runtime`.
 */
import { access, constants } from "node:fs/promises";
import { type Config, type Logger, loadConfig, type Platform, startSandboxLifecycle } from "../core/index.ts";
import { sqliteFile } from "../plugins/storage/connection-settings.ts";
import type { ClientAddress } from "../transports/rest/create-app.ts";
import type { Upgrades } from "../transports/rest/upgrades.ts";
import { createCairnApp } from "./create-cairn-app.ts";
import { createPlatform } from "./create-platform.ts";
import { lockDataDirectory } from "./data-directory-lock.ts";
import { explainStartUpFailure } from "./explain-start-up-failure.ts";
import { createLogger } from "./logger.ts";
import { fileProblem, StartUpFailure } from "./start-up-failure.ts";

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
    /** Upgrade requests (WebSockets): an entry that cannot serve them leaves them unanswered. */
    upgrades?: Upgrades,
  ): {
    /** Resolves once listening; rejects with why it cannot (a port in use, an address not this machine's). */
    listening: Promise<void>;
    close(deadlineMilliseconds: number): Promise<void>;
  };
}

/**
 * SQLite's files, when they exist, must be readable and writable by this user: otherwise SQLite
 * opens them read-only and the first write fails deep in the start.
 */
async function checkSqliteFiles(directory: string): Promise<void> {
  for (const suffix of ["", "-wal", "-shm"]) {
    const file = `${sqliteFile(directory)}${suffix}`;
    const problem = await access(file, constants.R_OK | constants.W_OK).then(
      () => null,
      (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : error),
    );
    if (problem !== null) {
      throw new StartUpFailure(
        `cairn: cannot use the database ${file}: ${fileProblem(problem.code ?? "") ?? problem.message}; give this user read and write access to the data directory's files (chown -R), or set SVC_DATA_DIR to another directory`,
        { cause: problem },
      );
    }
  }
}

export async function startCairn(
  environment: Record<string, string | undefined>,
  runtime: Runtime,
): Promise<(signal: string) => Promise<void>> {
  let config: Config | undefined;
  try {
    config = loadConfig(environment);
    return await startConfigured(config, runtime);
  } catch (error) {
    // What the user can fix is one line (start-up-failure.ts); anything else keeps its stack.
    throw explainStartUpFailure(error, {
      host: config?.SVC_HOST,
      port: config?.SVC_PORT,
      dataDirectory: config?.SVC_DATA_DIR,
      databaseUrl: config?.SVC_DATABASE_URL,
    });
  }
}

async function startConfigured(config: Config, runtime: Runtime): Promise<(signal: string) => Promise<void>> {
  const logger = createLogger(config);
  const release = await lockDataDirectory(config.SVC_DATA_DIR);
  let platform: Platform | undefined;
  let app: ReturnType<typeof createCairnApp> | undefined;
  let listener: ReturnType<Runtime["listen"]> | undefined;
  try {
    if (config.SVC_DATABASE_URL === undefined) await checkSqliteFiles(config.SVC_DATA_DIR);
    platform = await createPlatform(config, { logger });
    app = createCairnApp(platform, { clientIp: runtime.clientIp });
    listener = runtime.listen(
      app.fetch,
      { hostname: config.SVC_HOST, port: config.SVC_PORT },
      logger,
      app.upgrades,
    );
    await listener.listening;
  } catch (error) {
    // Nothing is left open: the sandbox disks the platform mounted are unmounted, the lock released.
    await app?.close().catch(() => {});
    await platform?.close().catch(() => {});
    await release();
    throw error;
  }
  const stopSandboxLifecycle = startSandboxLifecycle(platform);
  let stopping: Promise<void> | undefined;
  return (signal) => {
    stopping ??= (async () => {
      logger.info({ signal, runtime: runtime.name }, "shutting down");
      await stopSandboxLifecycle();
      // Open MCP event streams end first, or the listener would wait on them.
      await app?.close();
      // Requests in flight finish (an exec runs to its end) before storage and sandboxes close.
      await listener?.close(config.SVC_SHUTDOWN_TIMEOUT_SECONDS * 1000);
      // Closing the platform unmounts the sandbox disks (left mounted, they would outlive a data
      // directory that is then removed).
      await platform?.close();
      await release();
    })();
    return stopping;
  };
}
