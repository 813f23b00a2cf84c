/**
 * Which thrown errors are a dependency's failure (503) rather than a bug (500), by the shapes the
 * drivers give them; the end-to-end proofs are test/faults/database-outage.test.ts (PostgreSQL
 * stopped under traffic) and test/faults/full-disk.test.ts (SQLite on a full disk).
 */
import { describe, expect, it } from "vitest";
import { dependencyFailure } from "./dependency-failures.ts";
import { toServiceError } from "./errors.ts";

const coded = (code: string, message = "failed") => Object.assign(new Error(message), { code });

describe("dependency failures", () => {
  it("tells an unreachable database from a full disk, through causes and MikroORM's wrappers", () => {
    expect(dependencyFailure(coded("ECONNREFUSED"))).toBe("service_unavailable");
    expect(dependencyFailure(coded("57P01", "terminating connection due to administrator command"))).toBe(
      "service_unavailable",
    );
    expect(dependencyFailure(coded("08006"))).toBe("service_unavailable");
    expect(dependencyFailure(new Error("Connection terminated unexpectedly"))).toBe("service_unavailable");
    const wrapped = Object.assign(new Error("connect ECONNREFUSED"), { name: "ConnectionException" });
    expect(dependencyFailure(wrapped)).toBe("service_unavailable");
    expect(dependencyFailure(new Error("query failed", { cause: coded("ECONNRESET") }))).toBe(
      "service_unavailable",
    );
    expect(dependencyFailure(new AggregateError([coded("ECONNREFUSED")]))).toBe("service_unavailable");
    expect(dependencyFailure(coded("SQLITE_FULL"))).toBe("storage_error");
    expect(dependencyFailure(coded("SQLITE_IOERR_WRITE"))).toBe("storage_error");
    expect(dependencyFailure(coded("ENOSPC"))).toBe("storage_error");
    expect(dependencyFailure(coded("53100"))).toBe("storage_error");
  });

  it("leaves every other failure internal_error, and answers a dependency's with a retry delay", () => {
    for (const error of [new Error("boom"), coded("23505"), coded("SQLITE_CONSTRAINT"), "text", null]) {
      expect(dependencyFailure(error)).toBeNull();
      expect(toServiceError(error).code).toBe("internal_error");
    }
    const unavailable = toServiceError(coded("ECONNREFUSED"));
    expect([unavailable.code, unavailable.retryAfterSeconds]).toEqual(["service_unavailable", 5]);
    const full = toServiceError(coded("SQLITE_FULL"));
    expect([full.code, full.retryAfterSeconds]).toEqual(["storage_error", 30]);
    expect(full.toBody()).toEqual({
      code: "storage_error",
      message: "The server's storage is full or failing; retry later",
      retryable: true,
      remediation: "Retry later.",
    });
  });
});
