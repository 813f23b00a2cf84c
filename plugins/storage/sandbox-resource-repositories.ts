/**
 * Volumes, outbound-MCP connections and custom images: per-account named things with a cap, in
 * bound SQL through the shared per-account table (account-rows.ts, as secrets are). Each cap is
 * checked and the row inserted in one transaction, under the account row's lock on PostgreSQL,
 * so two racing creates cannot both take the last slot.
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
import { accountTable } from "./account-rows.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { list, sql } from "./sql-statement.ts";

const readTime = (value: unknown) => new Date(value as string | number);

export function createVolumeRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): VolumeRepository {
  const time = sqlTimestamp(dialect);
  const volumes = accountTable({
    execute,
    runTransaction,
    dialect,
    table: "volumes",
    columns: ["id", "account_id", "label", "size_gb", "status", "pvc_name", "failure_reason", "created_at"],
    read: (row): VolumeRecord => ({
      id: row.id as string,
      accountId: row.account_id as string,
      label: (row.label as string | null) ?? null,
      sizeGb: Number(row.size_gb),
      status: row.status as VolumeStatus,
      pvcName: (row.pvc_name as string | null) ?? null,
      failureReason: (row.failure_reason as string | null) ?? null,
      createdAt: readTime(row.created_at),
    }),
  });
  return {
    create: (record, limit) =>
      volumes.create(
        {
          id: record.id,
          account_id: record.accountId,
          label: record.label,
          size_gb: record.sizeGb,
          status: record.status,
          pvc_name: record.pvcName,
          failure_reason: record.failureReason,
          created_at: time(record.createdAt),
        },
        {
          limit,
          counted: sql` and status <> 'deleting'`,
          refusal: (active) =>
            new ServiceError("volume_limit_reached", `An account can hold at most ${limit} volumes`, {
              details: { limit, active },
            }),
        },
      ),
    get: volumes.get,
    list: volumes.list,
    findByIds: (accountId, ids) => volumes.findIn(accountId, "id", ids),
    async settle(id, outcome) {
      await execute(
        sql`update volumes set status = ${outcome.status}, pvc_name = ${outcome.pvcName}, failure_reason = ${outcome.failureReason} where id = ${id}`,
      );
    },
    async transition(accountId, id, from, to) {
      const rows = await execute(
        sql`update volumes set status = ${to} where account_id = ${accountId} and id = ${id} and status in (${list(from)}) returning id`,
      );
      return rows.length > 0;
    },
    delete: volumes.delete,
  };
}

export function createMcpConnectionRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): McpConnectionRepository {
  const time = sqlTimestamp(dialect);
  const connections = accountTable({
    execute,
    runTransaction,
    dialect,
    table: "mcp_connections",
    columns: ["id", "account_id", "label", "catalog_id", "host", "created_at", "last_used_at"],
    read: (row): McpConnectionRecord => ({
      id: row.id as string,
      accountId: row.account_id as string,
      label: row.label as string,
      catalogId: row.catalog_id as string,
      host: row.host as string,
      createdAt: readTime(row.created_at),
      lastUsedAt: row.last_used_at == null ? null : readTime(row.last_used_at),
    }),
  });
  return {
    create: (record, limit) =>
      connections.create(
        {
          id: record.id,
          account_id: record.accountId,
          label: record.label,
          catalog_id: record.catalogId,
          host: record.host,
          created_at: time(record.createdAt),
          last_used_at: null,
        },
        {
          limit,
          refusal: () =>
            new ServiceError(
              "mcp_connection_limit_reached",
              `An account can hold at most ${limit} MCP connections`,
              { details: { limit } },
            ),
        },
        () =>
          new ServiceError(
            "mcp_connection_label_taken",
            `An MCP connection labelled ${JSON.stringify(record.label)} already exists`,
          ),
      ),
    list: connections.list,
    findByLabels: (accountId, labels) => connections.findIn(accountId, "label", labels),
    delete: connections.delete,
    touch: (accountId, labels, now) => connections.touch(accountId, "label", labels, now),
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
  const packages = (value: unknown) => JSON.parse(value as string) as string[];
  const images = accountTable({
    execute,
    runTransaction,
    dialect,
    table: "sandbox_images",
    columns: [
      "id",
      "account_id",
      "label",
      "base",
      "python_packages",
      "apt_packages",
      "npm_packages",
      "spec_hash",
      "status",
      "digest",
      "registry_ref",
      "layer_path",
      "failure_reason",
      "build_log_tail",
      "created_at",
      "completed_at",
    ],
    read: (row): ImageRecord => ({
      id: row.id as string,
      accountId: row.account_id as string,
      label: (row.label as string | null) ?? null,
      base: row.base as string,
      pythonPackages: packages(row.python_packages),
      aptPackages: packages(row.apt_packages),
      npmPackages: packages(row.npm_packages),
      specHash: row.spec_hash as string,
      status: row.status as ImageStatus,
      digest: (row.digest as string | null) ?? null,
      registryRef: (row.registry_ref as string | null) ?? null,
      layerPath: (row.layer_path as string | null) ?? null,
      failureReason: (row.failure_reason as string | null) ?? null,
      buildLogTail: (row.build_log_tail as string | null) ?? null,
      createdAt: readTime(row.created_at),
      completedAt: row.completed_at == null ? null : readTime(row.completed_at),
    }),
  });
  const { selected } = images;
  return {
    async create(record, limits) {
      await runTransaction(async (run) => {
        if (dialect === "postgresql") await run(sql`select pg_advisory_xact_lock(${imageBuildLockKey})`);
        await images.checkCap(run, record.accountId, {
          limit: limits.perAccount,
          refusal: (active) =>
            new ServiceError(
              "image_build_limit_reached",
              `An account can hold at most ${limits.perAccount} images`,
              { details: { limit: limits.perAccount, active } },
            ),
        });
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
        await images.insert(run, {
          id: record.id,
          account_id: record.accountId,
          label: record.label,
          base: record.base,
          python_packages: JSON.stringify(record.pythonPackages),
          apt_packages: JSON.stringify(record.aptPackages),
          npm_packages: JSON.stringify(record.npmPackages),
          spec_hash: record.specHash,
          status: record.status,
          digest: record.digest,
          registry_ref: record.registryRef,
          layer_path: record.layerPath,
          failure_reason: record.failureReason,
          build_log_tail: record.buildLogTail,
          created_at: time(record.createdAt),
          completed_at: time(record.completedAt),
        });
      });
    },
    get: images.get,
    list: images.list,
    async findReusable(accountId, specHash, since) {
      const [row] = await execute(
        sql`${selected} where account_id = ${accountId} and spec_hash = ${specHash} and status = 'completed' and completed_at >= ${time(since)} order by completed_at desc limit 1`,
      );
      return row ? images.read(row) : null;
    },
    async claim(id) {
      const [row] = await execute(
        sql`update sandbox_images set status = 'building' where id = ${id} and status = 'queued' returning ${images.columns}`,
      );
      return row ? images.read(row) : null;
    },
    async settle(id, outcome) {
      const rows = await execute(
        sql`update sandbox_images set status = ${outcome.status}, digest = ${outcome.digest}, registry_ref = ${outcome.registryRef}, layer_path = ${outcome.layerPath}, failure_reason = ${outcome.failureReason}, build_log_tail = ${outcome.buildLogTail}, completed_at = ${time(outcome.completedAt)} where id = ${id} and status = 'building' returning id`,
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
    delete: images.delete,
  };
}
