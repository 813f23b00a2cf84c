/**
 * The language servers running for this process's sandboxes, by session. Servers outlive the
 * request that started them, so they are held here in process; each ends with its session: at
 * `lsp_stop`, when it exits by itself, or when its sandbox is destroyed (by the API, the reaper,
 * reconciliation) or the server closes (docs/sandboxes.md#language-servers).
 */
import { ServiceError } from "../../errors.ts";
import type { Logger } from "../../ports/logger.ts";
import type { SandboxProcess, SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { type LanguageClient, startLanguageClient } from "./language-client.ts";
import { languages, supportedLanguages } from "./languages.ts";

/** Servers one session may run at once; more is 429 `lsp_limit_reached`. */
export const languageServersPerSession = 4;

export interface LanguageServers {
  /** Starts a server for `language` in the sandbox; returns its `lsp_<32 hex>` id. */
  start(runtime: SandboxRuntime, sessionId: string, language: string): Promise<string>;
  /** The session's server, or 404 `not_found`. */
  get(sessionId: string, lspId: string): LanguageClient;
  /** Stops one server (shutdown + exit, then kill); 404 `not_found` if the session has no such server. */
  stop(sessionId: string, lspId: string): Promise<void>;
  /** Kills every server of a session at once (its sandbox is going away). */
  endSession(sessionId: string): void;
  /** How many servers a session runs (starting ones included). */
  count(sessionId: string): number;
  /** Kills every server. */
  close(): void;
  /**
   * The runtime with its `destroy` and `close` ending the servers first, so every path that
   * ends a sandbox ends its language servers too.
   */
  endingWithSessions(runtime: SandboxRuntime): SandboxRuntime;
}

export interface LanguageServersOptions {
  logger: Logger;
  limitPerSession?: number;
  requestTimeoutMs?: number;
  initializeTimeoutMs?: number;
  shutdownGraceMs?: number;
}

function newLspId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `lsp_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

const notFound = () => new ServiceError("not_found", "Language server not found in this sandbox");

export function createLanguageServers(options: LanguageServersOptions): LanguageServers {
  const limit = options.limitPerSession ?? languageServersPerSession;
  // A starting server holds its slot (null) so parallel starts cannot pass the cap.
  const sessions = new Map<string, Map<string, LanguageClient | null>>();

  const serversOf = (sessionId: string) => {
    let servers = sessions.get(sessionId);
    if (!servers) {
      servers = new Map();
      sessions.set(sessionId, servers);
    }
    return servers;
  };
  const forget = (sessionId: string, lspId: string) => {
    const servers = sessions.get(sessionId);
    servers?.delete(lspId);
    if (servers?.size === 0) sessions.delete(sessionId);
  };

  const languageServers: LanguageServers = {
    async start(runtime, sessionId, language) {
      const spec = Object.hasOwn(languages, language) ? languages[language] : undefined;
      if (!spec) {
        throw new ServiceError("validation_error", "Invalid request", {
          details: [
            {
              type: "enum",
              loc: ["language"],
              msg: `Unsupported language; supported: ${supportedLanguages.join(", ")}`,
            },
          ],
        });
      }
      if (!runtime.spawnProcess) {
        throw new ServiceError(
          "sandbox_operation_failed",
          `Language servers are not available on the ${runtime.name} sandbox runtime`,
        );
      }
      const servers = serversOf(sessionId);
      if (servers.size >= limit) {
        throw new ServiceError("lsp_limit_reached", `A sandbox runs at most ${limit} language servers`, {
          details: { limit },
        });
      }
      const lspId = newLspId();
      servers.set(lspId, null);
      let process: SandboxProcess | undefined;
      try {
        process = await runtime.spawnProcess(sessionId, {
          command: spec.command,
          env: { HOME: "/workspace", PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", TMPDIR: "/tmp" },
        });
        const client = await startLanguageClient(process, {
          languageIdOf: spec.languageIdOf,
          requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
          initializeTimeoutMs: options.initializeTimeoutMs ?? 60_000,
          shutdownGraceMs: options.shutdownGraceMs ?? 2_000,
        });
        if (sessions.get(sessionId) !== servers) {
          // The sandbox ended while the server started.
          client.kill();
          throw notFound();
        }
        servers.set(lspId, client);
        void client.exited.then(() => {
          if (sessions.get(sessionId)?.get(lspId) === client) forget(sessionId, lspId);
        });
        options.logger.info({ sessionId, lspId, language }, "language server started");
        return lspId;
      } catch (error) {
        if (servers.get(lspId) === null) forget(sessionId, lspId);
        // The failed start killed the process, so this settles: a start the sandbox's own
        // processes left no room for is the caller's limit, not the runtime's failure.
        throw (await process?.startFailure) ?? error;
      }
    },
    get(sessionId, lspId) {
      const client = sessions.get(sessionId)?.get(lspId);
      if (!client) throw notFound();
      return client;
    },
    async stop(sessionId, lspId) {
      const client = languageServers.get(sessionId, lspId);
      forget(sessionId, lspId);
      await client.stop();
    },
    endSession(sessionId) {
      const servers = sessions.get(sessionId);
      sessions.delete(sessionId);
      for (const client of servers?.values() ?? []) client?.kill();
    },
    count: (sessionId) => sessions.get(sessionId)?.size ?? 0,
    close() {
      for (const sessionId of [...sessions.keys()]) languageServers.endSession(sessionId);
    },
    endingWithSessions(runtime) {
      return new Proxy(runtime, {
        get(target, property, receiver) {
          if (property === "destroy") {
            return (id: string) => {
              languageServers.endSession(id);
              return target.destroy(id);
            };
          }
          if (property === "close") {
            return () => {
              languageServers.close();
              return target.close();
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  };
  return languageServers;
}
