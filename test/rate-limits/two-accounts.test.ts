/**
 * Two accounts at twice their limits at once, against the real server on each rate-limit store
 * (in-process, PostgreSQL, Redis): every answer is a success or a conformant 429 with Retry-After,
 * and each account is granted what its own bucket allows (capacity + refill × elapsed, ±1 token),
 * however hard the other one pushes: one account's load never spends the other's budget. Tiny
 * buckets and a short window keep it quick; test/bench/load.ts runs the real minute.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketBounds, driveAccount } from "../support/account-load.ts";
import { createTestDatabase } from "../support/platforms.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";
import { startTestRedis, type TestRedis } from "../support/redis.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");
// One token a second; the window at twice that.
const limit = 60;
const windowSeconds = 6;

const stores = ["memory", "postgres", "redis"] as const;

describe.each(stores)("two accounts at twice their limits on the %s store", (store) => {
  let dataDir: string;
  let server: RunningServer;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let redis: TestRedis | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-two-accounts-"));
    database = store === "postgres" ? await createTestDatabase() : undefined;
    redis = store === "redis" ? await startTestRedis() : undefined;
    server = await startServer(process.execPath, [entry], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      SVC_MEMORY_RATE_LIMIT_PER_MINUTE: String(limit),
      SVC_RATE_LIMIT_STORE: store,
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
      ...(redis ? { SVC_REDIS_URL: redis.url } : {}),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers every request with a success or a conformant 429, and grants each account its own bucket", async () => {
    const keys = [(await signUpWithKey(server.baseUrl)).key, (await signUpWithKey(server.baseUrl)).key];
    const loads = await Promise.all(
      keys.map((key) =>
        driveAccount({
          baseUrl: server.baseUrl,
          key,
          limit,
          burst: true,
          ratePerSecond: (2 * limit) / 60,
          windowSeconds,
        }),
      ),
    );
    for (const load of loads) {
      expect(load.nonconforming).toEqual([]);
      expect(load.allowed + load.refused).toBe(load.sent);
      // The load did go past the limit: about half the window's requests were refused.
      expect(load.refused).toBeGreaterThan(windowSeconds / 2 - 2);
      const { fewest, most } = bucketBounds(load, limit);
      expect(load.allowed).toBeGreaterThanOrEqual(fewest);
      expect(load.allowed).toBeLessThanOrEqual(most);
    }
  });
});
