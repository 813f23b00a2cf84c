/**
 * Turns the error a start failed with into a StartUpFailure when the user can fix it (a setting,
 * the port, the data directory, SQLite's file, PostgreSQL), naming the problem and the fix.
 */
import { InvalidConfiguration } from "../core/config.ts";
import { PluginLoadError } from "../core/plugins/plugin-operations.ts";
import { DataDirectoryBusy } from "./data-directory-lock.ts";
import { type ErrorLike, fileProblem, type StartUpContext, StartUpFailure } from "./start-up-failure.ts";

const networkCodes: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name could not be resolved",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
};

/** postgres://user:password@host:port/db → host:port/db, so the line never shows the password. */
function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}`;
  } catch {
    return "SVC_DATABASE_URL";
  }
}

const sqliteProblems: Record<string, string> = {
  SQLITE_READONLY: "it is read-only to this user",
  SQLITE_CANTOPEN: "it cannot be opened",
  SQLITE_PERM: "permission denied",
  SQLITE_NOTADB: "it is not a SQLite database",
  SQLITE_CORRUPT: "it is damaged",
  SQLITE_FULL: "the disk is full",
};

/** The error a start failed with, as a StartUpFailure when the user can fix it; else unchanged. */
export function explainStartUpFailure(error: unknown, context: StartUpContext): unknown {
  if (error instanceof StartUpFailure) return error;
  if (error instanceof DataDirectoryBusy) return new StartUpFailure(error.line, { cause: error });
  if (error instanceof PluginLoadError) return new StartUpFailure(error.message, { cause: error });
  if (!(error instanceof Error)) return error;
  const { code, severity } = error as ErrorLike;
  const where = `${context.host ?? "127.0.0.1"} port ${context.port ?? "?"}`;
  if (error instanceof InvalidConfiguration || /^Invalid configuration: /.test(error.message)) {
    return new StartUpFailure(
      `cairn: ${error.message.replace(/^Invalid configuration: /, "invalid setting ")}; correct the value or unset it for the default (docs/configuration.md)`,
      { cause: error },
    );
  }
  // Settings checked while the platform is composed (secrets in production, SVC_REDIS_URL, …).
  if (/^SVC_[A-Z0-9_]+(:| is | must )/.test(error.message)) {
    return new StartUpFailure(`cairn: ${error.message}; see docs/configuration.md`, { cause: error });
  }
  if (code === "EADDRINUSE" || error.name === "AddrInUse") {
    return new StartUpFailure(
      `cairn: cannot listen on ${where}: it is in use by another process; stop that process or set SVC_PORT to a free port`,
      { cause: error },
    );
  }
  if (
    (code === "EACCES" && (error as { syscall?: string }).syscall === "listen") ||
    error.name === "PermissionDenied"
  ) {
    return new StartUpFailure(
      `cairn: cannot listen on ${where}: permission denied (ports below 1024 need root); set SVC_PORT to 1024 or above`,
      { cause: error },
    );
  }
  if (code === "EADDRNOTAVAIL" || error.name === "AddrNotAvailable") {
    return new StartUpFailure(
      `cairn: cannot listen on ${where}: the address is not one of this machine's; set SVC_HOST to 127.0.0.1, 0.0.0.0 or an address of this machine`,
      { cause: error },
    );
  }
  if (typeof code === "string" && code.startsWith("SQLITE_")) {
    const file = `${(context.dataDirectory ?? ".").replace(/\/+$/, "")}/cairn.db`;
    return new StartUpFailure(
      `cairn: cannot use the database ${file}: ${sqliteProblems[code] ?? error.message}; give this user write access to the data directory and its files, or set SVC_DATA_DIR to another directory`,
      { cause: error },
    );
  }
  if (context.databaseUrl !== undefined) {
    const address = databaseAddress(context.databaseUrl);
    if (typeof code === "string" && code in networkCodes) {
      return new StartUpFailure(
        `cairn: cannot reach the database at ${address}: ${networkCodes[code]}; start PostgreSQL or correct SVC_DATABASE_URL`,
        { cause: error },
      );
    }
    // PostgreSQL's own refusals: class 28 is a login refused, 3D000 a database that does not exist.
    if (typeof severity === "string" && typeof code === "string") {
      const fix = code.startsWith("28")
        ? "correct the user and password in SVC_DATABASE_URL"
        : code === "3D000"
          ? "create the database or correct its name in SVC_DATABASE_URL"
          : "correct SVC_DATABASE_URL or the database";
      return new StartUpFailure(`cairn: the database at ${address} refused: ${error.message}; ${fix}`, {
        cause: error,
      });
    }
  }
  if (typeof code === "string" && typeof (error as ErrorLike).path === "string") {
    const problem = fileProblem(code);
    if (problem !== null) {
      return new StartUpFailure(
        `cairn: cannot use ${(error as ErrorLike).path}: ${problem}; give this user access or set SVC_DATA_DIR to another directory`,
        { cause: error },
      );
    }
  }
  return error;
}
