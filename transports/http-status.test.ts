/** Every error code has one HTTP status, and the table names no code core does not have. */
import { describe, expect, it } from "vitest";
import { errorCodes } from "../core/index.ts";
import { httpStatus, httpStatuses } from "./http-status.ts";

describe("HTTP statuses of the error codes", () => {
  it("covers exactly core's codes, each with an error status", () => {
    expect(Object.keys(httpStatuses).sort()).toEqual(Object.keys(errorCodes).sort());
    for (const code of Object.keys(errorCodes) as Array<keyof typeof errorCodes>) {
      expect(httpStatus(code), code).toBeGreaterThanOrEqual(400);
      expect(httpStatus(code), code).toBeLessThan(600);
    }
  });

  it("answers a server's fault only for codes worth retrying", () => {
    const serverFaults = Object.entries(httpStatuses).filter(([, status]) => status >= 500);
    expect(serverFaults.length).toBeGreaterThan(0);
    for (const [code] of serverFaults)
      expect(errorCodes[code as keyof typeof errorCodes].retryable, code).toBe(true);
  });
});
