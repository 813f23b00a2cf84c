/**
 * Sandbox sessions, command allowlists and secrets: sessions through MikroORM's entity manager
 * (the capacity check under a lock so racing creates cannot both take the last slot), allowlists
 * and secrets in bound SQL (secrets through the shared per-account table, account-rows.ts).
 */
import type { EntityManager } from "@mikro-orm/core";
import {
  type AllowlistRepository,
  type SandboxSessionRecord,
  type SandboxSessionRepository,
  type SecretRecord,
  type SecretRepository,
  ServiceError,
  type UsageRepository,
} from "../../core/index.ts";
import { accountTable } from "./account-rows.ts";
import { SandboxSessionEntity } from "./entities.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

type Fork = () => EntityManager;

function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** Seconds of sandbox time the account used in `now`'s calendar month (UTC); a session bills until it ended or expired. */
async function monthlySandboxSeconds(
  entityManager: EntityManager,
  accountId: string,
  now: Date,
): Promise<number> {
  // Sessions that ran at some point this month: still running, or ended after it began.
  const sessions = await entityManager.find(
    SandboxSessionEntity,
    { accountId, $or: [{ destroyedAt: null }, { destroyedAt: { $gte: monthStart(now) } }] },
    { fields: ["createdAt", "destroyedAt", "expiresAt"], disableIdentityMap: true },
  );
  const start = monthStart(now).getTime();
  let milliseconds = 0;
  for (const session of sessions) {
    const from = Math.max(session.createdAt.getTime(), start);
    const to = Math.min(
      session.destroyedAt?.getTime() ?? now.getTime(),
      session.expiresAt.getTime(),
      now.getTime(),
    );
    if (to > from) milliseconds += to - from;
  }
  return milliseconds / 1000;
}

/** Sessions that hold a slot: active and not yet past their expiry (the reaper may be behind). */
const activeAt = (now: Date) => ({ status: "active", expiresAt: { $gt: now } });

const toRecord = (entity: object) => ({ ...entity }) as SandboxSessionRecord;

export function createUsageRepository(fork: Fork): UsageRepository {
  return {
    async figures(accountId, now) {
      const entityManager = fork();
      const [activeSandboxes, totalSandboxesCreated, seconds] = await Promise.all([
        entityManager.count(SandboxSessionEntity, { accountId, ...activeAt(now) }),
        entityManager.count(SandboxSessionEntity, { accountId }),
        monthlySandboxSeconds(entityManager, accountId, now),
      ]);
      return { activeSandboxes, totalSandboxesCreated, monthlySandboxSeconds: seconds };
    },
  };
}

export function createSandboxSessionRepository(fork: Fork, dialect: Dialect): SandboxSessionRepository {
  return {
    async reserve(accountId, sessions, now, decide) {
      await fork().transactional(async (entityManager) => {
        // One create at a time per deployment: the global cap is deployment-wide.
        if (dialect === "postgresql") {
          await entityManager
            .getConnection()
            .execute(
              "select pg_advisory_xact_lock(727274001)",
              [],
              "all",
              entityManager.getTransactionContext(),
            );
        }
        const [active, globalActive, monthlySeconds] = await Promise.all([
          entityManager.count(SandboxSessionEntity, { accountId, ...activeAt(now) }),
          entityManager.count(SandboxSessionEntity, activeAt(now)),
          monthlySandboxSeconds(entityManager, accountId, now),
        ]);
        const refusal = decide({ active, globalActive, monthlySandboxSeconds: monthlySeconds });
        if (refusal) throw refusal;
        for (const session of sessions)
          entityManager.create(SandboxSessionEntity, { ...session, grants: { ...session.grants } });
        await entityManager.flush();
      });
    },
    async discard(ids) {
      if (ids.length > 0) await fork().nativeDelete(SandboxSessionEntity, { id: { $in: ids } });
    },
    async setConnection(id, podName, note) {
      await fork().nativeUpdate(SandboxSessionEntity, { id }, { podName, connectNote: note });
    },
    async get(accountId, id) {
      const entity = await fork().findOne(
        SandboxSessionEntity,
        { id, accountId },
        { disableIdentityMap: true },
      );
      return entity ? toRecord(entity) : null;
    },
    async getById(id) {
      const entity = await fork().findOne(SandboxSessionEntity, { id }, { disableIdentityMap: true });
      return entity ? toRecord(entity) : null;
    },
    async list(accountId, activeOnly) {
      const rows = await fork().find(
        SandboxSessionEntity,
        activeOnly ? { accountId, status: "active" } : { accountId },
        { orderBy: { createdAt: "desc", id: "desc" }, disableIdentityMap: true },
      );
      return rows.map(toRecord);
    },
    async end(id, reason, at, announce = false) {
      const changed = await fork().nativeUpdate(
        SandboxSessionEntity,
        { id, status: "active" },
        { status: "destroyed", destroyedAt: at, endedReason: reason, endEventPending: announce },
      );
      return changed > 0;
    },
    async unannouncedEnds() {
      const rows = await fork().find(
        SandboxSessionEntity,
        { status: "destroyed", endEventPending: true },
        { orderBy: { destroyedAt: "asc", id: "asc" }, disableIdentityMap: true },
      );
      return rows.map(toRecord);
    },
    async endAnnounced(id) {
      await fork().nativeUpdate(SandboxSessionEntity, { id }, { endEventPending: false });
    },
    async expired(now) {
      const rows = await fork().find(
        SandboxSessionEntity,
        { status: "active", expiresAt: { $lte: now } },
        { disableIdentityMap: true },
      );
      return rows.map(toRecord);
    },
    async allActive() {
      const rows = await fork().find(
        SandboxSessionEntity,
        { status: "active" },
        { disableIdentityMap: true },
      );
      return rows.map(toRecord);
    },
  };
}

export function createAllowlistRepository(execute: Execute, dialect: Dialect): AllowlistRepository {
  const time = sqlTimestamp(dialect);
  return {
    async get(accountId) {
      const [row] = await execute<{ rules: unknown }>(
        sql`select rules from account_allowlists where account_id = ${accountId}`,
      );
      if (!row) return [];
      return (typeof row.rules === "string" ? JSON.parse(row.rules) : row.rules) as unknown[];
    },
    async set(accountId, rules, now) {
      await execute(
        sql`insert into account_allowlists (account_id, rules, updated_at) values (${accountId}, ${JSON.stringify(rules)}, ${time(now)}) on conflict (account_id) do update set rules = excluded.rules, updated_at = excluded.updated_at`,
      );
    },
    async clear(accountId) {
      await execute(sql`delete from account_allowlists where account_id = ${accountId}`);
    },
  };
}

export function createSecretRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): SecretRepository {
  const time = sqlTimestamp(dialect);
  const secrets = accountTable({
    execute,
    runTransaction,
    dialect,
    table: "secrets",
    columns: ["id", "account_id", "name", "encrypted_value", "allowed_hosts", "created_at", "last_used_at"],
    read: (row): SecretRecord => ({
      id: row.id as string,
      accountId: row.account_id as string,
      name: row.name as string,
      encryptedValue: row.encrypted_value as string,
      allowedHosts: (typeof row.allowed_hosts === "string"
        ? JSON.parse(row.allowed_hosts)
        : row.allowed_hosts) as string[],
      createdAt: new Date(row.created_at as string),
      lastUsedAt: row.last_used_at == null ? null : new Date(row.last_used_at as string),
    }),
  });
  return {
    create: (record, limit) =>
      secrets.create(
        {
          id: record.id,
          account_id: record.accountId,
          name: record.name,
          encrypted_value: record.encryptedValue,
          allowed_hosts: JSON.stringify(record.allowedHosts),
          created_at: time(record.createdAt),
          last_used_at: null,
        },
        {
          limit,
          refusal: () =>
            new ServiceError("secret_limit_reached", `An account can hold at most ${limit} secrets`, {
              details: { limit },
            }),
        },
        () =>
          new ServiceError(
            "secret_name_taken",
            `A secret named ${JSON.stringify(record.name)} already exists`,
          ),
      ),
    list: secrets.list,
    findByNames: (accountId, names) => secrets.findIn(accountId, "name", names),
    delete: secrets.delete,
    touch: (accountId, names, now) => secrets.touch(accountId, "name", names, now),
  };
}
