/**
 * Token buckets shared by every replica, in PostgreSQL. rate-limiter-flexible only has
 * fixed-window limiters, so the bucket is the `cairn_take_token` function of the first
 * migration: refill and take under a row lock, in one round trip. The arithmetic matches
 * core's in-process store (core/token-bucket.ts).
 */
import type pg from "pg";
import type { TokenBucketStore } from "../../core/index.ts";
import { decide, refill } from "../../core/index.ts";

/** `pool` is the rate-limit plugin's own (rate-limit-plugin.ts), shared with the login guard. */
export function createPostgresTokenBucketStore(pool: pg.Pool): TokenBucketStore {
  return {
    async consume(key, capacity, now) {
      const { rows } = await pool.query<{ remaining_tokens: number | string; is_allowed: boolean }>(
        "select remaining_tokens, is_allowed from cairn_take_token($1, $2, $3)",
        [key, capacity, now.getTime()],
      );
      const [row] = rows;
      const level = Number(row.remaining_tokens);
      if (row.is_allowed) return { allowed: true, remaining: Math.floor(level), retryAfterSeconds: 0 };
      const { retryAfterSeconds } = decide(level, capacity);
      return { allowed: false, remaining: 0, retryAfterSeconds };
    },
    async peek(key, capacity, now) {
      const { rows } = await pool.query<{ tokens: number | string; updated_at: number | string }>(
        "select tokens, updated_at from rate_limit_buckets where key = $1",
        [key],
      );
      const [row] = rows;
      if (!row) return capacity;
      return Math.floor(
        refill({ tokens: Number(row.tokens), updatedAt: Number(row.updated_at) }, capacity, now.getTime()),
      );
    },
  };
}
