/**
 * Token buckets shared by every replica, in PostgreSQL. rate-limiter-flexible only has
 * fixed-window limiters, so the bucket is the `cairn_take_token` function of the first
 * migration: refill and take under a row lock, in one round trip. The arithmetic matches
 * core's in-process store (core/token-bucket.ts).
 */
import type { TokenBucketStore } from "../../core/index.ts";
import { decide, refill } from "../../core/index.ts";

/** A statement as the storage plugin binds it: the text around its values (plugins/storage/sql-statement.ts). */
type Statement = { readonly parts: readonly string[]; readonly values: readonly unknown[] };
type Execute = <Row>(statement: Statement) => Promise<Row[]>;
const statement = (parts: TemplateStringsArray, ...values: unknown[]): Statement => ({ parts, values });

export function createPostgresTokenBucketStore(execute: Execute): TokenBucketStore {
  return {
    async consume(key, capacity, now) {
      const [row] = await execute<{ remaining_tokens: number | string; is_allowed: boolean }>(
        statement`select remaining_tokens, is_allowed from cairn_take_token(${key}, ${capacity}, ${now.getTime()})`,
      );
      const level = Number(row.remaining_tokens);
      if (row.is_allowed) return { allowed: true, remaining: Math.floor(level), retryAfterSeconds: 0 };
      const { retryAfterSeconds } = decide(level, capacity);
      return { allowed: false, remaining: 0, retryAfterSeconds };
    },
    async peek(key, capacity, now) {
      const [row] = await execute<{ tokens: number | string; updated_at: number | string }>(
        statement`select tokens, updated_at from rate_limit_buckets where key = ${key}`,
      );
      if (!row) return capacity;
      return Math.floor(
        refill({ tokens: Number(row.tokens), updatedAt: Number(row.updated_at) }, capacity, now.getTime()),
      );
    },
  };
}
