/**
 * `cairn mcp serve --data-dir DIR`: the registry served in-process over stdio, with nothing else
 * to start. The platform is built as the server builds it (SVC_* settings from the environment,
 * the data directory DIR: SQLite in it, local sandboxes when this machine can run them) and calls
 * go through the MCP server /mcp uses (transports/mcp/create-mcp-server.ts), as the directory's
 * local account (local-account.ts). stdout carries MCP messages alone: logs go to stderr. The CLI
 * loads this module, and with it the server, only in this mode (cli/mcp-in-process.ts).
 */
import { loadConfig, type Platform, type Principal, startSandboxLifecycle } from "../core/index.ts";
import { trimHeapWhenIdle } from "../lib/idle-heap-trim/index.ts";
import { createMcpServer } from "../transports/mcp/create-mcp-server.ts";
import { type ResultMode, toolProfiles } from "../transports/mcp/profiles.ts";
import { serveOverStdio } from "../transports/mcp/stdio.ts";
import { createPlatform } from "./create-platform.ts";
import { lockDataDirectory } from "./data-directory-lock.ts";
import { localPrincipal } from "./local-account.ts";
import { createLogger } from "./logger.ts";

export interface StdioServeOptions {
  /** An absolute path; created (0700) when missing. */
  dataDir: string;
  /** The tool profile: all, memory, sandbox or a loaded plugin's name. */
  tools: string;
  /** How results travel (transports/mcp/profiles.ts); unset, by the client's protocol version. */
  results?: ResultMode;
  environment: Record<string, string | undefined>;
}

function checkProfile(platform: Platform, profile: string): void {
  const known = [...toolProfiles, ...platform.tools.plugins];
  if (!known.includes(profile))
    throw new Error(`--tools must be one of ${known.join(", ")}, not ${JSON.stringify(profile)}`);
}

/**
 * Serves until the client closes stdin or a SIGINT or SIGTERM comes, then stops the sandbox
 * lifecycle, closes the platform (its sandboxes and storage), releases the directory and exits.
 * Resolves once serving; a failure to start is thrown with nothing left open.
 */
export async function serveRegistryOverStdio(options: StdioServeOptions): Promise<void> {
  const config = loadConfig({ ...options.environment, SVC_DATA_DIR: options.dataDir });
  const logger = createLogger(config, 2);
  const release = await lockDataDirectory(config.SVC_DATA_DIR);
  let platform: Platform | undefined;
  let principal: Principal;
  try {
    platform = await createPlatform(config, { logger });
    checkProfile(platform, options.tools);
    principal = await localPrincipal(platform);
  } catch (error) {
    await platform?.close();
    await release();
    throw error;
  }
  const server = createMcpServer(platform, {
    profile: options.tools,
    results: options.results,
    caller: () => ({
      credential: null,
      principal,
      clientIp: "127.0.0.1",
      requestId: crypto.randomUUID().replaceAll("-", ""),
    }),
  });
  const stopSandboxLifecycle = startSandboxLifecycle(platform);
  const stopHeapTrim = trimHeapWhenIdle();
  const serving = platform;
  let stopping: Promise<void> | undefined;
  const stop = (reason: string) => {
    stopping ??= (async () => {
      logger.info({ reason }, "shutting down");
      stopHeapTrim();
      await stopSandboxLifecycle();
      await serving.close();
      await release();
    })().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
    return stopping;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop(signal));
  await serveOverStdio(server, () => void stop("stdin closed"));
  logger.info(
    {
      dataDir: config.SVC_DATA_DIR,
      accountId: principal.accountId,
      tools: options.tools,
      startupMs: Math.round(performance.now()),
    },
    "cairn mcp serve ready",
  );
}
