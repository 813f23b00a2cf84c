/**
 * Failures of what the server depends on, told apart from bugs: a database that cannot be reached
 * (stopped, restarting, connections cut) is 503 `service_unavailable`, and a disk that is full or
 * failing is 503 `storage_error`, both with Retry-After, where anything else thrown is a 500. The
 * drivers are recognised by the shape of their errors (a code or a message, also on a `cause`), so
 * core names no driver: node-postgres and PostgreSQL's SQLSTATEs, better-sqlite3's result codes,
 * Node's socket and file-system errnos, and MikroORM's wrappers, which copy the driver's fields.
 */

export type DependencyFailure = "service_unavailable" | "storage_error";

// PostgreSQL: class 08 (connection exception), 57P01-57P03 (shut down, crashed, starting up).
const unreachableSqlStates = /^(08[0-9A-Z]{3}|57P0[1-3])$/;
// PostgreSQL: 53100 disk_full; 58030 io_error.
const storageSqlStates = new Set(["53100", "58030"]);
const unreachableErrnos = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
// node-postgres reports a cut connection and a connect timeout by message only.
const unreachableMessages =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended unexpectedly)/;

function classifyOne(error: { code?: unknown; name?: unknown; message?: unknown }): DependencyFailure | null {
  const code = typeof error.code === "string" ? error.code : "";
  if (storageSqlStates.has(code) || code === "ENOSPC" || code === "EDQUOT") return "storage_error";
  // better-sqlite3: SQLITE_FULL, SQLITE_IOERR and its extended codes (SQLITE_IOERR_WRITE, …).
  if (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR")) return "storage_error";
  if (unreachableSqlStates.test(code) || unreachableErrnos.has(code)) return "service_unavailable";
  if (error.name === "ConnectionException") return "service_unavailable";
  if (typeof error.message === "string" && unreachableMessages.test(error.message))
    return "service_unavailable";
  return null;
}

/** The dependency failure behind `error` (or one of its causes, or an AggregateError's), if any. */
export function dependencyFailure(error: unknown, depth = 0): DependencyFailure | null {
  if (depth > 5 || typeof error !== "object" || error === null) return null;
  const found = classifyOne(error as { code?: unknown; name?: unknown; message?: unknown });
  if (found) return found;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const innerFound = dependencyFailure(inner, depth + 1);
      if (innerFound) return innerFound;
    }
  }
  return dependencyFailure((error as { cause?: unknown }).cause, depth + 1);
}

/** How long a client should wait before retrying: a database restart takes seconds, freeing a disk longer. */
export const dependencyRetryAfterSeconds: Record<DependencyFailure, number> = {
  service_unavailable: 5,
  storage_error: 30,
};
