/**
 * A recall that fails on a search thread because the database cannot be reached is a 503 on the
 * serving thread, as it would be had it failed there: the thread sends the driver's code along
 * with the message. A real worker thread against a PostgreSQL address nothing listens on.
 */
import { describe, expect, it } from "vitest";
import { silentLogger, toServiceError } from "../core/index.ts";
import { freePort } from "../test/support/processes.ts";
import { createMemorySearchThreads } from "./memory-search-threads.ts";

describe("search threads", () => {
  it("turn an unreachable database into 503 service_unavailable, not a 500", async () => {
    const port = await freePort();
    const search = createMemorySearchThreads({
      threads: 1,
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/cairn`,
      sqlitePath: "",
      logger: silentLogger,
    });
    try {
      const failure = await search
        .recall(crypto.randomUUID(), { query: "anything", limit: 5, now: new Date(), commonTermRows: 2000 })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(toServiceError(failure)).toMatchObject({ code: "service_unavailable" });
    } finally {
      await search.close();
    }
  });
});
