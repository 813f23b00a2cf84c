/**
 * How often and when each memory was recalled: read by id, and written a batch at a time (on
 * SQLite without waiting, on PostgreSQL under the account's lock, shared).
 */
import type { MemoryStore } from "../../core/index.ts";
import { memoryLockClass } from "./memory-account-lock.ts";
import type { MemoryContext } from "./memory-context.ts";
import type { Execute } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

type AccessCountMethods = Pick<MemoryStore, "accessCounts" | "recordAccess">;

export function createAccessCountMethods(context: MemoryContext): AccessCountMethods {
  const { run, sqlite, time, readTime, byIds, inTransaction, runTransaction } = context;
  return {
    async accessCounts(accountId, ids) {
      if (ids.length === 0) return [];
      const rows = await run(byIds(sql`id, access_count, last_accessed_at`, accountId, ids));
      return rows.map((row) => ({
        id: row.id as string,
        accessCount: Number(row.access_count),
        lastAccessedAt: readTime(row.last_accessed_at),
      }));
    },

    async recordAccess(accountId, accesses) {
      if (accesses.length === 0) return;
      if (sqlite) {
        const rows = JSON.stringify(accesses.map((access) => [access.id, access.count, time(access.at)]));
        await run(
          sql`update memories set access_count = access_count + (a.value ->> 1), last_accessed_at = a.value ->> 2
             from json_each(${rows}) as a where memories.id = a.value ->> 0 and +memories.account_id = ${accountId}`,
        );
        return;
      }
      const ids = accesses.map((access) => access.id);
      const write = async (execute: Execute) => {
        // Rows locked in id order, so neither a write nor another batch can hold one row while
        // waiting for another: no deadlock.
        await execute(
          sql`update memories set access_count = memories.access_count + a.count, last_accessed_at = a.at
             from unnest(${ids}::varchar[], ${accesses.map((access) => access.count)}::int[], ${accesses.map((access) => access.at)}::timestamptz[]) as a(id, count, at)
             where memories.id = a.id and memories.id in
             (select id from memories where account_id = ${accountId} and id = any(${ids}::varchar[]) order by id for update)`,
        );
      };
      if (inTransaction) {
        await write(run);
        return;
      }
      // The account's lock, shared: a batch waits for a write in progress, never for another batch.
      await runTransaction(async (execute) => {
        await execute(sql`select pg_advisory_xact_lock_shared(${memoryLockClass}, hashtext(${accountId}))`);
        await write(execute);
      });
    },
  };
}
