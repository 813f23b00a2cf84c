/**
 * Failed-login protection (docs/rate-limits.md#failed-logins): 10 consecutive failures for one
 * email+IP block that pair for 15 minutes; a success resets the count. rate-limiter-flexible's
 * limiters with a block duration are exactly this, in memory or in PostgreSQL (shared by replicas).
 */
import pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { LoginGuard } from "../../core/index.ts";

const maximumFailures = 10;
const windowSeconds = 15 * 60;

type Limiter = RateLimiterMemory | RateLimiterPostgres;

function guardFor(limiter: Limiter, close: () => Promise<void>): LoginGuard & { close(): Promise<void> } {
  return {
    async blockedFor(key) {
      const state = await limiter.get(key);
      if (!state || state.consumedPoints < maximumFailures) return 0;
      return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    },
    async recordFailure(key) {
      try {
        await limiter.consume(key);
      } catch (error) {
        // Going past the limit is the expected way to reach the block; anything else is real.
        if (!(error instanceof RateLimiterRes)) throw error;
      }
    },
    async reset(key) {
      await limiter.delete(key);
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

export async function createPostgresLoginGuard(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
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
