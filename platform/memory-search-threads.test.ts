/**
 * Search threads (memory-search-threads.ts), real worker threads: a recall that fails on a thread
 * because the database cannot be reached is a 503 on the serving thread, as it would be had it
 * failed there (the thread sends the driver's code along with the message); accounts take turns
 * for the threads; and only an account's home thread keeps what its recalls read.
 */
import { describe, expect, it } from "vitest";
import { silentLogger, toServiceError } from "../core/index.ts";
import { sqliteFile } from "../plugins/storage/connection-settings.ts";
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

  // Regression (issue 45): with one account's recalls spread over both threads, each thread kept
  // the same rows and analyses, twice the memory for nothing.
  it("keep an account's rows and analyses on its home thread only, while both threads rank its recalls", async () => {
    const test = await createTestPlatform("sqlite", { environment: { SVC_MEMORY_SEARCH_THREADS: "0" } });
    const search = createMemorySearchThreads({
      threads: 2,
      sqlitePath: sqliteFile(test.dataDir),
      logger: silentLogger,
    });
    try {
      const { accountId, key } = await createAccountWithKey(test);
      const colours = ["red", "green", "blue", "amber", "violet", "teal", "ochre", "slate"];
      const memories = colours.flatMap((colour) =>
        Array.from({ length: 20 }, (_, index) => ({
          content: `The ${colour} shed holds crate ${index} of tools.`,
        })),
      );
      const imported = await test.request("/v1/memory/import", {
        method: "POST",
        json: { memories },
        credential: key,
      });
      expect(imported.status).toBe(201);
      const recallAll = () =>
        Promise.all(
          colours.map((colour) =>
            search.recall(accountId, {
              query: `${colour} shed tools`,
              limit: 5,
              now: new Date(),
              commonTermRows: 2000,
            }),
          ),
        );
      // Twice: a thread keeps an account's reads from its second recall at the same version.
      const first = await recallAll();
      expect(first.every((recalled) => recalled?.length === 5)).toBe(true);
      expect(await recallAll()).toEqual(first);
      const threads = await search.caches();
      // Both threads ranked the account's recalls; one (its home) kept rows and analyses, the
      // other nothing.
      expect(threads.every(({ recalls }) => recalls > 0)).toBe(true);
      const kept = threads.map(({ bytes }) =>
        Object.values(bytes).reduce((sum, counted) => sum + counted, 0),
      );
      expect(kept.filter((bytes) => bytes > 0)).toHaveLength(1);
      const home = threads[kept.findIndex((bytes) => bytes > 0)];
      expect(home.bytes.rows).toBeGreaterThan(0);
      expect(home.bytes.analyses).toBeGreaterThan(0);
    } finally {
      await search.close();
      await test.close();
    }
  });
});
