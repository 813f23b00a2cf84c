/**
 * Failed-login protection (docs/rate-limits.md#failed-logins): 10 consecutive failures for one
 * email+IP block that pair for 15 minutes; a success resets the count. rate-limiter-flexible's
 * limiters with a block duration are exactly this, in memory, or in PostgreSQL or Redis (shared by
 * replicas).
 */
import type { Redis } from "ioredis";
import type pg from "pg";
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { LoginGuard } from "../../core/index.ts";
import { whileRedisReachable } from "./redis-connection.ts";

const maximumFailures = 10;
const windowSeconds = 15 * 60;

type Limiter = RateLimiterMemory | RateLimiterPostgres | RateLimiterRedis;

/** How a store's calls run: directly, or with its outage turned into 503 (Redis). */
type Call = <Result>(work: () => Promise<Result>) => Promise<Result>;

const direct: Call = (work) => work();

function guardFor(
  limiter: Limiter,
  close: () => Promise<void>,
  call: Call = direct,
): LoginGuard & { close(): Promise<void> } {
  return {
    async blockedFor(key) {
      const state = await call(() => limiter.get(key));
      if (!state || state.consumedPoints < maximumFailures) return 0;
      return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    },
    async recordFailure(key) {
      await call(async () => {
        try {
          await limiter.consume(key);
        } catch (error) {
          // Going past the limit is the expected way to reach the block; anything else is real.
          if (!(error instanceof RateLimiterRes)) throw error;
        }
      });
    },
    async reset(key) {
      await call(() => limiter.delete(key));
    },
    close,
  };
}

export function createMemoryLoginGuard() {
  const limiter = new RateLimiterMemory({
    keyPrefix: "login_failures",
    points: maximumFailures,
    duration: windowSeconds,
    blockDuration: windowSeconds,
  });
  return guardFor(limiter, async () => {});
}

/** Closing the guard ends `pool`, which it shares with the token buckets. */
export async function createPostgresLoginGuard(pool: pg.Pool) {
  const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
    const created: RateLimiterPostgres = new RateLimiterPostgres(
      {
        storeClient: pool,
        tableName: "login_failures",
        keyPrefix: "login_failures",
        points: maximumFailures,
        duration: windowSeconds,
        blockDuration: windowSeconds,
      },
      (error?: Error) => (error ? reject(error) : resolve(created)),
    );
  });
  return guardFor(limiter, () => pool.end());
}

/** Closing the guard closes the Redis connection it shares with the token buckets. */
export function createRedisLoginGuard(redis: Redis) {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: "cairn:login_failures",
    points: maximumFailures,
    duration: windowSeconds,
    blockDuration: windowSeconds,
    rejectIfRedisNotReady: true,
  });
  return guardFor(
    limiter,
    async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
    whileRedisReachable,
  );
}
