/**
 * Search threads (memory-search-threads.ts), real worker threads: a recall that fails on a thread
 * because the database cannot be reached is a 503 on the serving thread, as it would be had it
 * failed there (the thread sends the driver's code along with the message); and accounts take
 * turns for the threads.
 */
import { describe, expect, it } from "vitest";
import { silentLogger, toServiceError } from "../core/index.ts";
import { createAccountWithKey, createTestPlatform } from "../test/support/platforms.ts";
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

  // Regression: a recall went to a thread's queue at once, so a second account's recall waited
  // behind every recall one account had sent before it (issue 39).
  it("answer a second account's recall before the rest of one account's queued recalls", async () => {
    const test = await createTestPlatform("sqlite", { environment: { SVC_MEMORY_SEARCH_THREADS: "1" } });
    try {
      const [first, second] = [await createAccountWithKey(test), await createAccountWithKey(test)];
      const request = { query: "anything at all", limit: 5, now: new Date(), commonTermRows: 2000 };
      const answered: string[] = [];
      const recall = (accountId: string, name: string) =>
        test.platform.memorySearch.recall(accountId, request).then(() => answered.push(name));
      const calls = [1, 2, 3, 4, 5, 6].map((index) => recall(first.accountId, `first ${index}`));
      calls.push(recall(second.accountId, "second"));
      await Promise.all(calls);
      // The thread was busy with the first account's first recall; the second account's came next.
      expect(answered.slice(0, 2)).toEqual(["first 1", "second"]);
    } finally {
      await test.close();
    }
  });
});
