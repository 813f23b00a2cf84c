/**
 * Volumes, outbound-MCP connections and custom images: per-account named things with a cap, in raw SQL over the
 * bound statements (the same style as secrets). Each cap is checked and the row inserted in one
 * transaction, under the account row's lock on PostgreSQL, so two racing creates cannot both
 * take the last slot.
 */
import {
  type ImageRecord,
  type ImageRepository,
  type ImageStatus,
  type McpConnectionRecord,
  type McpConnectionRepository,
  ServiceError,
  type VolumeRecord,
  type VolumeRepository,
  type VolumeStatus,
} from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Execute, RunTransaction } from "./memory-store.ts";
import type { Dialect } from "./migrations/index.ts";
import { checkCap, isUniqueViolation } from "./repositories.ts";

const placeholders = (values: unknown[]) => values.map(() => "?").join(", ");
const readTime = (value: unknown) => new Date(value as string | number);

export function createVolumeRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): VolumeRepository {
  const time = sqlTimestamp(dialect);
  const columns = "id, account_id, label, size_gb, status, pvc_name, failure_reason, created_at";
  const read = (row: Record<string, unknown>): VolumeRecord => ({
    id: row.id as string,
    accountId: row.account_id as string,
    label: (row.label as string | null) ?? null,
    sizeGb: Number(row.size_gb),
    status: row.status as VolumeStatus,
    pvcName: (row.pvc_name as string | null) ?? null,
    failureReason: (row.failure_reason as string | null) ?? null,
    createdAt: readTime(row.created_at),
  });
  return {
    async create(record, limit) {
      await runTransaction(async (run) => {
        await checkCap(
          run,
          dialect,
          record.accountId,
          "select count(*) as total from volumes where account_id = ? and status <> 'deleting'",
          limit,
          (active) =>
            new ServiceError("volume_limit_reached", `An account can hold at most ${limit} volumes`, {
              details: { limit, active },
            }),
        );
        await run(`insert into volumes (${columns}) values (?, ?, ?, ?, ?, ?, ?, ?)`, [
          record.id,
          record.accountId,
          record.label,
          record.sizeGb,
          record.status,
          record.pvcName,
          record.failureReason,
          time(record.createdAt),
        ]);
      });
    },
    async get(accountId, id) {
      const [row] = await execute(`select ${columns} from volumes where account_id = ? and id = ?`, [
        accountId,
        id,
      ]);
      return row ? read(row) : null;
    },
    async list(accountId) {
      const rows = await execute(
        `select ${columns} from volumes where account_id = ? order by created_at desc, id desc`,
        [accountId],
      );
      return rows.map(read);
    },
    async findByIds(accountId, ids) {
      if (ids.length === 0) return [];
      const rows = await execute(
        `select ${columns} from volumes where account_id = ? and id in (${placeholders(ids)})`,
        [accountId, ...ids],
      );
      return rows.map(read);
    },
    async settle(id, outcome) {
      await execute("update volumes set status = ?, pvc_name = ?, failure_reason = ? where id = ?", [
        outcome.status,
        outcome.pvcName,
        outcome.failureReason,
        id,
      ]);
    },
    async transition(accountId, id, from, to) {
      const rows = await execute(
        `update volumes set status = ? where account_id = ? and id = ? and status in (${placeholders(from)}) returning id`,
        [to, accountId, id, ...from],
      );
      return rows.length > 0;
    },
    async delete(accountId, id) {
      const rows = await execute("delete from volumes where account_id = ? and id = ? returning id", [
        accountId,
        id,
      ]);
      return rows.length > 0;
    },
  };
}

export function createMcpConnectionRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): McpConnectionRepository {
  const time = sqlTimestamp(dialect);
  const columns = "id, account_id, label, catalog_id, host, created_at, last_used_at";
  const read = (row: Record<string, unknown>): McpConnectionRecord => ({
    id: row.id as string,
    accountId: row.account_id as string,
    label: row.label as string,
    catalogId: row.catalog_id as string,
    host: row.host as string,
    createdAt: readTime(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : readTime(row.last_used_at),
  });
  return {
    async create(record, limit) {
      await runTransaction(async (run) => {
        await checkCap(
          run,
          dialect,
          record.accountId,
          "select count(*) as total from mcp_connections where account_id = ?",
          limit,
          () =>
            new ServiceError(
              "mcp_connection_limit_reached",
              `An account can hold at most ${limit} MCP connections`,
              { details: { limit } },
            ),
        );
        try {
          await run(`insert into mcp_connections (${columns}) values (?, ?, ?, ?, ?, ?, ?)`, [
            record.id,
            record.accountId,
            record.label,
            record.catalogId,
            record.host,
            time(record.createdAt),
            null,
          ]);
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new ServiceError(
              "mcp_connection_label_taken",
              `An MCP connection labelled ${JSON.stringify(record.label)} already exists`,
            );
          }
          throw error;
        }
      });
    },
    async list(accountId) {
      const rows = await execute(
        `select ${columns} from mcp_connections where account_id = ? order by created_at desc, id desc`,
        [accountId],
      );
      return rows.map(read);
    },
    async findByLabels(accountId, labels) {
      if (labels.length === 0) return [];
      const rows = await execute(
        `select ${columns} from mcp_connections where account_id = ? and label in (${placeholders(labels)})`,
        [accountId, ...labels],
      );
      return rows.map(read);
    },
    async delete(accountId, id) {
      const rows = await execute("delete from mcp_connections where account_id = ? and id = ? returning id", [
        accountId,
        id,
      ]);
      return rows.length > 0;
    },
    async touch(accountId, labels, now) {
      if (labels.length === 0) return;
      await execute(
        `update mcp_connections set last_used_at = ? where account_id = ? and label in (${placeholders(labels)})`,
        [time(now), accountId, ...labels],
      );
    },
  };
}

// One advisory lock serialises image creates across replicas, so the deployment-wide count of
// builds in flight cannot be passed by two racing creates (any constant key works).
const imageBuildLockKey = 7_404_311;

export function createImageRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): ImageRepository {
  const time = sqlTimestamp(dialect);
  const columns =
    "id, account_id, label, base, python_packages, apt_packages, npm_packages, spec_hash, status, digest, registry_ref, layer_path, failure_reason, build_log_tail, created_at, completed_at";
  const list = (value: unknown) => JSON.parse(value as string) as string[];
  const read = (row: Record<string, unknown>): ImageRecord => ({
    id: row.id as string,
    accountId: row.account_id as string,
    label: (row.label as string | null) ?? null,
    base: row.base as string,
    pythonPackages: list(row.python_packages),
    aptPackages: list(row.apt_packages),
    npmPackages: list(row.npm_packages),
    specHash: row.spec_hash as string,
    status: row.status as ImageStatus,
    digest: (row.digest as string | null) ?? null,
    registryRef: (row.registry_ref as string | null) ?? null,
    layerPath: (row.layer_path as string | null) ?? null,
    failureReason: (row.failure_reason as string | null) ?? null,
    buildLogTail: (row.build_log_tail as string | null) ?? null,
    createdAt: readTime(row.created_at),
    completedAt: row.completed_at == null ? null : readTime(row.completed_at),
  });
  return {
    async create(record, limits) {
      await runTransaction(async (run) => {
        if (dialect === "postgresql") await run("select pg_advisory_xact_lock(?)", [imageBuildLockKey]);
        await checkCap(
          run,
          dialect,
          record.accountId,
          "select count(*) as total from sandbox_images where account_id = ?",
          limits.perAccount,
          (active) =>
            new ServiceError(
              "image_build_limit_reached",
              `An account can hold at most ${limits.perAccount} images`,
              { details: { limit: limits.perAccount, active } },
            ),
        );
        if (record.status === "queued") {
          const [{ total }] = await run<{ total: number | string }>(
            "select count(*) as total from sandbox_images where status in ('queued', 'building')",
          );
          if (Number(total) >= limits.globalInFlight) {
            throw new ServiceError(
              "global_build_capacity_reached",
              "The deployment is building as many images as it can",
              { details: { limit: limits.globalInFlight, in_flight: Number(total) } },
            );
          }
        }
        await run(
          `insert into sandbox_images (${columns}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            record.id,
            record.accountId,
            record.label,
            record.base,
            JSON.stringify(record.pythonPackages),
            JSON.stringify(record.aptPackages),
            JSON.stringify(record.npmPackages),
            record.specHash,
            record.status,
            record.digest,
            record.registryRef,
            record.layerPath,
            record.failureReason,
            record.buildLogTail,
            time(record.createdAt),
            time(record.completedAt),
          ],
        );
      });
    },
    async get(accountId, id) {
      const [row] = await execute(`select ${columns} from sandbox_images where account_id = ? and id = ?`, [
        accountId,
        id,
      ]);
      return row ? read(row) : null;
    },
    async list(accountId) {
      const rows = await execute(
        `select ${columns} from sandbox_images where account_id = ? order by created_at desc, id desc`,
        [accountId],
      );
      return rows.map(read);
    },
    async findReusable(accountId, specHash, since) {
      const [row] = await execute(
        `select ${columns} from sandbox_images where account_id = ? and spec_hash = ? and status = 'completed' and completed_at >= ? order by completed_at desc limit 1`,
        [accountId, specHash, time(since)],
      );
      return row ? read(row) : null;
    },
    async claim(id) {
      const [row] = await execute(
        `update sandbox_images set status = 'building' where id = ? and status = 'queued' returning ${columns}`,
        [id],
      );
      return row ? read(row) : null;
    },
    async settle(id, outcome) {
      const rows = await execute(
        "update sandbox_images set status = ?, digest = ?, registry_ref = ?, layer_path = ?, failure_reason = ?, build_log_tail = ?, completed_at = ? where id = ? and status = 'building' returning id",
        [
          outcome.status,
          outcome.digest,
          outcome.registryRef,
          outcome.layerPath,
          outcome.failureReason,
          outcome.buildLogTail,
          time(outcome.completedAt),
          id,
        ],
      );
      return rows.length > 0;
    },
    async requeueInterrupted() {
      await execute("update sandbox_images set status = 'queued' where status = 'building'");
      const rows = await execute<{ id: string }>(
        "select id from sandbox_images where status = 'queued' order by created_at, id",
      );
      return rows.map((row) => row.id);
    },
    async delete(accountId, id) {
      const rows = await execute("delete from sandbox_images where account_id = ? and id = ? returning id", [
        accountId,
        id,
      ]);
      return rows.length > 0;
    },
  };
}
