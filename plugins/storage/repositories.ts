/** Repositories for accounts, API keys and usage over MikroORM entity managers. */
import { type EntityManager, UniqueConstraintViolationException } from "@mikro-orm/core";
import {
  type AccountRecord,
  type AccountRepository,
  type ApiKeyRecord,
  type ApiKeyRepository,
  ServiceError,
} from "../../core/index.ts";
import { AccountEntity, ApiKeyEntity } from "./entities.ts";
import type { Execute } from "./memory-store.ts";
import type { Dialect } from "./migrations/index.ts";

type Fork = () => EntityManager;

export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof UniqueConstraintViolationException) return true;
  // Raw statements may surface the driver's own error: SQLite's code or PostgreSQL's SQLSTATE.
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

export function createAccountRepository(fork: Fork, execute: Execute): AccountRepository {
  return {
    async create({ email, passwordHash, now }) {
      const entityManager = fork();
      const account = entityManager.create(AccountEntity, {
        id: crypto.randomUUID(),
        email,
        passwordHash,
        createdAt: now,
      });
      try {
        await entityManager.flush();
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ServiceError("email_taken", "An account with this email already exists");
        throw error;
      }
      return { ...account } as AccountRecord;
    },
    async findByEmail(email) {
      return (await fork().findOne(
        AccountEntity,
        { email },
        { disableIdentityMap: true },
      )) as AccountRecord | null;
    },
    // Every request with an API key to an account route runs this: one bound statement (on
    // SQLite a read that never waits for a write, bound-sql.ts), not an ORM query.
    async findById(id) {
      const [row] = await execute<Record<string, unknown>>(
        "select id, email, password_hash, created_at from accounts where id = ?",
        [id],
      );
      if (!row) return null;
      return {
        id: row.id as string,
        email: row.email as string,
        passwordHash: row.password_hash as string,
        createdAt: new Date(row.created_at as string | number | Date),
      };
    },
  };
}

export function createApiKeyRepository(fork: Fork, execute: Execute): ApiKeyRepository {
  return {
    async create({ accountId, name, prefix, keyHash, now }) {
      const entityManager = fork();
      const key = entityManager.create(ApiKeyEntity, {
        id: crypto.randomUUID(),
        accountId,
        name,
        prefix,
        keyHash,
        createdAt: now,
        revokedAt: null,
        lastUsedAt: null,
      });
      await entityManager.flush();
      return { ...key } as ApiKeyRecord;
    },
    async list(accountId) {
      const keys = await fork().find(
        ApiKeyEntity,
        { accountId },
        { orderBy: { createdAt: "desc", id: "desc" } },
      );
      return keys as ApiKeyRecord[];
    },
    async revoke(accountId, keyId, now) {
      const changed = await fork().nativeUpdate(
        ApiKeyEntity,
        { id: keyId, accountId, revokedAt: null },
        { revokedAt: now },
      );
      return changed > 0;
    },
    // Every API request runs this: one bound statement, not an ORM query to build and hydrate.
    async findActiveByHash(keyHash) {
      const [row] = await execute<Record<string, unknown>>(
        "select id, account_id, name, prefix, key_hash, created_at, revoked_at, last_used_at from api_keys where key_hash = ? and revoked_at is null",
        [keyHash],
      );
      if (!row) return null;
      const time = (value: unknown) => (value == null ? null : new Date(value as string | number | Date));
      return {
        id: row.id as string,
        accountId: row.account_id as string,
        name: row.name as string,
        prefix: row.prefix as string,
        keyHash: row.key_hash as string,
        createdAt: time(row.created_at) as Date,
        revokedAt: time(row.revoked_at),
        lastUsedAt: time(row.last_used_at),
      };
    },
    async touch(keyId, now) {
      await fork().nativeUpdate(ApiKeyEntity, { id: keyId }, { lastUsedAt: now });
    },
  };
}

/**
 * An account's cap on rows of some kind, inside the creating transaction: counts them under a
 * lock on the account row (PostgreSQL; SQLite has one writer) and refuses with `refusal` at the
 * limit, so two racing creates cannot both take the last slot.
 */
export async function checkCap(
  run: Execute,
  dialect: Dialect,
  accountId: string,
  countSql: string,
  limit: number,
  refusal: (count: number) => ServiceError,
): Promise<void> {
  if (dialect === "postgresql") await run("select id from accounts where id = ? for update", [accountId]);
  const [{ total }] = await run<{ total: number | string }>(countSql, [accountId]);
  if (Number(total) >= limit) throw refusal(Number(total));
}
