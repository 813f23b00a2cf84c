/** Idempotency records in SQL: claiming is one insert, so two racing requests cannot both run. */
import type { IdempotencyStore } from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

const retentionMilliseconds = 24 * 60 * 60 * 1000;

export function createIdempotencyStore(execute: Execute, dialect: Dialect): IdempotencyStore {
  const time = sqlTimestamp(dialect);
  return {
    async claim(scopeKey, requestHash, now) {
      // Records past retention no longer count.
      const retained = time(new Date(now.getTime() - retentionMilliseconds));
      await execute(
        sql`delete from idempotency_records where scope_key = ${scopeKey} and created_at < ${retained}`,
      );
      const inserted = await execute(
        sql`insert into idempotency_records (scope_key, request_hash, created_at) values (${scopeKey}, ${requestHash}, ${time(now)}) on conflict (scope_key) do nothing returning scope_key`,
      );
      if (inserted.length > 0) return { state: "claimed" };
      const [row] = await execute<{
        request_hash: string;
        status: number | null;
        content_type: string | null;
        body: string | null;
      }>(
        sql`select request_hash, status, content_type, body from idempotency_records where scope_key = ${scopeKey}`,
      );
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
        sql`update idempotency_records set status = ${response.status}, content_type = ${response.contentType}, body = ${response.body} where scope_key = ${scopeKey}`,
      );
    },
    async release(scopeKey) {
      await execute(sql`delete from idempotency_records where scope_key = ${scopeKey}`);
    },
  };
}
