/** Idempotency records in SQL: claiming is one insert, so two racing requests cannot both run. */
import type { IdempotencyStore } from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Execute } from "./memory-store.ts";
import type { Dialect } from "./migrations/index.ts";

const retentionMilliseconds = 24 * 60 * 60 * 1000;

export function createIdempotencyStore(execute: Execute, dialect: Dialect): IdempotencyStore {
  const time = sqlTimestamp(dialect);
  return {
    async claim(scopeKey, requestHash, now) {
      // Records past retention no longer count.
      await execute("delete from idempotency_records where scope_key = ? and created_at < ?", [
        scopeKey,
        time(new Date(now.getTime() - retentionMilliseconds)),
      ]);
      const inserted = await execute(
        "insert into idempotency_records (scope_key, request_hash, created_at) values (?, ?, ?) on conflict (scope_key) do nothing returning scope_key",
        [scopeKey, requestHash, time(now)],
      );
      if (inserted.length > 0) return { state: "claimed" };
      const [row] = await execute<{
        request_hash: string;
        status: number | null;
        content_type: string | null;
        body: string | null;
      }>("select request_hash, status, content_type, body from idempotency_records where scope_key = ?", [
        scopeKey,
      ]);
      if (!row) return { state: "in_progress" };
      if (row.request_hash !== requestHash) return { state: "mismatch" };
      if (row.status === null) return { state: "in_progress" };
      return {
        state: "completed",
        status: Number(row.status),
        contentType: row.content_type ?? "",
        body: row.body ?? "",
      };
    },
    async complete(scopeKey, response) {
      await execute(
        "update idempotency_records set status = ?, content_type = ?, body = ? where scope_key = ?",
        [response.status, response.contentType, response.body, scopeKey],
      );
    },
    async release(scopeKey) {
      await execute("delete from idempotency_records where scope_key = ?", [scopeKey]);
    },
  };
}
