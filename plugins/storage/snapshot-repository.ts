/**
 * Sandbox snapshots (docs/sandboxes.md#snapshots): per-account rows under a cap, through the
 * shared per-account table (account-rows.ts), so two racing snapshots cannot both take the last slot.
 */
import { ServiceError, type SnapshotRecord, type SnapshotRepository } from "../../core/index.ts";
import { accountTable } from "./account-rows.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

export function createSnapshotRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): SnapshotRepository {
  const time = sqlTimestamp(dialect);
  const snapshots = accountTable({
    execute,
    runTransaction,
    dialect,
    table: "sandbox_snapshots",
    columns: [
      "id",
      "account_id",
      "session_id",
      "label",
      "size",
      "storage_gb",
      "image_id",
      "runtime",
      "status",
      "size_bytes",
      "handle",
      "created_at",
    ],
    read: (row): SnapshotRecord => ({
      id: row.id as string,
      accountId: row.account_id as string,
      sessionId: row.session_id as string,
      label: (row.label as string | null) ?? null,
      size: row.size as SnapshotRecord["size"],
      storageGb: row.storage_gb === null ? null : Number(row.storage_gb),
      imageId: (row.image_id as string | null) ?? null,
      runtime: row.runtime as SnapshotRecord["runtime"],
      status: row.status as SnapshotRecord["status"],
      sizeBytes: Number(row.size_bytes),
      handle: (row.handle as string | null) ?? null,
      createdAt: new Date(row.created_at as string | number),
    }),
  });
  return {
    create: (record, limit) =>
      snapshots.create(
        {
          id: record.id,
          account_id: record.accountId,
          session_id: record.sessionId,
          label: record.label,
          size: record.size,
          storage_gb: record.storageGb,
          image_id: record.imageId,
          runtime: record.runtime,
          status: record.status,
          size_bytes: record.sizeBytes,
          handle: record.handle,
          created_at: time(record.createdAt),
        },
        {
          limit,
          refusal: (count) =>
            new ServiceError("snapshot_limit_reached", `An account can hold at most ${limit} snapshots`, {
              details: { limit, count },
            }),
        },
      ),
    async settle(id, taken) {
      await execute(
        sql`update sandbox_snapshots set status = 'ready', size_bytes = ${taken.sizeBytes}, handle = ${taken.handle} where id = ${id}`,
      );
    },
    get: snapshots.get,
    async list(accountId, sessionId) {
      const all = await snapshots.list(accountId);
      return sessionId === undefined ? all : all.filter((snapshot) => snapshot.sessionId === sessionId);
    },
    delete: snapshots.delete,
  };
}
