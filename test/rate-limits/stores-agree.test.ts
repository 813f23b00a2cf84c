/**
 * The three token-bucket stores agree to the token: one seeded random history of takes and peeks
 * (several buckets and capacities, waits from nothing to past a full refill, several takes at one
 * instant) gives the same decision and the same level from the in-process store, PostgreSQL's
 * `cairn_take_token` and Redis's Lua script.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BucketDecision, TokenBucketStore } from "../../core/index.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";
import { startTestRedis, type TestRedis } from "../support/redis.ts";
import { seededRandom } from "../support/seeded-random.ts";

describe("token-bucket stores", () => {
  let redis: TestRedis;
  const platforms: TestPlatform[] = [];
  const stores: Record<string, TokenBucketStore> = {};

  beforeAll(async () => {
    redis = await startTestRedis();
    const memory = await createTestPlatform("sqlite");
    const postgres = await createTestPlatform("postgresql", {
      environment: { SVC_RATE_LIMIT_STORE: "postgres" },
    });
    const onRedis = await createTestPlatform("sqlite", {
      environment: { SVC_RATE_LIMIT_STORE: "redis", SVC_REDIS_URL: redis.url },
    });
    platforms.push(memory, postgres, onRedis);
    stores.memory = memory.platform.rateLimits;
    stores.postgres = postgres.platform.rateLimits;
    stores.redis = onRedis.platform.rateLimits;
  });
  afterAll(async () => {
    for (const platform of platforms) await platform.close();
    await redis?.stop();
  });

  it("give the same answers to one random history", async () => {
    const next = seededRandom(20261123);
    const capacities = [1, 3, 7, 10, 20, 120];
    const buckets = Array.from({ length: 6 }, (_, index) => ({
      key: `agree:${crypto.randomUUID()}:${index}`,
      capacity: capacities[index % capacities.length],
    }));
    let now = Date.UTC(2026, 10, 23, 12);
    let refused = 0;
    for (let step = 0; step < 600; step++) {
      const roll = next();
      // Mostly bursts at one instant, sometimes a fraction of a token's time, now and then minutes.
      if (roll < 0.3) now += Math.floor(next() * 1000);
      else if (roll < 0.35) now += Math.floor(next() * 120_000);
      const bucket = buckets[Math.floor(next() * buckets.length)];
      const at = new Date(now);
      if (next() < 0.15) {
        const levels = await Promise.all(
          Object.values(stores).map((store) => store.peek(bucket.key, bucket.capacity, at)),
        );
        expect(new Set(levels).size, `peek at step ${step}: ${levels}`).toBe(1);
        continue;
      }
      const decisions: BucketDecision[] = [];
      for (const store of Object.values(stores))
        decisions.push(await store.consume(bucket.key, bucket.capacity, at));
      expect(decisions[1], `postgres at step ${step}`).toEqual(decisions[0]);
      expect(decisions[2], `redis at step ${step}`).toEqual(decisions[0]);
      if (!decisions[0].allowed) refused++;
    }
    // The history exercised both answers.
    expect(refused).toBeGreaterThan(50);
  });
});
