/**
 * Accounts and API keys in bound SQL: a key's lookup runs on every API request and an account's
 * on every account route, so each is one prepared statement (on SQLite a read that never waits
 * for a write, sql-execution.ts), not an ORM query to build and hydrate; the rest of the family
 * is written the same way.
 */
import {
  type AccountRecord,
  type AccountRepository,
  type ApiKeyRecord,
  type ApiKeyRepository,
  ServiceError,
} from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute } from "./sql-execution.ts";
import { raw, sql } from "./sql-statement.ts";

/** A unique constraint refused the row: SQLite's code or PostgreSQL's SQLSTATE. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

const readTime = (value: unknown) => (value == null ? null : new Date(value as string | number | Date));

export function createAccountRepository(execute: Execute, dialect: Dialect): AccountRepository {
  const time = sqlTimestamp(dialect);
  const read = (row: Record<string, unknown>): AccountRecord => ({
    id: row.id as string,
    email: row.email as string,
    passwordHash: row.password_hash as string,
    createdAt: readTime(row.created_at) as Date,
  });
  const columns = raw("id, email, password_hash, created_at");
  return {
    async create({ email, passwordHash, now }) {
      const account = { id: crypto.randomUUID(), email, passwordHash, createdAt: now };
      try {
        await execute(
          sql`insert into accounts (${columns}) values (${account.id}, ${email}, ${passwordHash}, ${time(now)})`,
        );
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ServiceError("email_taken", "An account with this email already exists");
        throw error;
      }
      return account;
    },
    async findByEmail(email) {
      const [row] = await execute(sql`select ${columns} from accounts where email = ${email}`);
      return row ? read(row) : null;
    },
    async findById(id) {
      const [row] = await execute(sql`select ${columns} from accounts where id = ${id}`);
      return row ? read(row) : null;
    },
  };
}

export function createApiKeyRepository(execute: Execute, dialect: Dialect): ApiKeyRepository {
  const time = sqlTimestamp(dialect);
  const columns = raw("id, account_id, name, prefix, key_hash, created_at, revoked_at, last_used_at, role");
  const read = (row: Record<string, unknown>): ApiKeyRecord => ({
    id: row.id as string,
    accountId: row.account_id as string,
    name: row.name as string,
    prefix: row.prefix as string,
    keyHash: row.key_hash as string,
    createdAt: readTime(row.created_at) as Date,
    revokedAt: readTime(row.revoked_at),
    lastUsedAt: readTime(row.last_used_at),
    role: row.role === "member" ? "member" : "admin",
  });
  return {
    async create({ accountId, name, prefix, keyHash, now, role = "admin" }) {
      const key: ApiKeyRecord = {
        id: crypto.randomUUID(),
        accountId,
        name,
        prefix,
        keyHash,
        createdAt: now,
        revokedAt: null,
        lastUsedAt: null,
        role,
      };
      await execute(
        sql`insert into api_keys (${columns}) values (${key.id}, ${accountId}, ${name}, ${prefix}, ${keyHash}, ${time(now)}, ${null}, ${null}, ${role})`,
      );
      return key;
    },
    async list(accountId) {
      const rows = await execute(
        sql`select ${columns} from api_keys where account_id = ${accountId} order by created_at desc, id desc`,
      );
      return rows.map(read);
    },
    async revoke(accountId, keyId, now) {
      const changed = await execute(
        sql`update api_keys set revoked_at = ${time(now)} where id = ${keyId} and account_id = ${accountId} and revoked_at is null returning id`,
      );
      return changed.length > 0;
    },
    // Every API request runs this.
    async findActiveByHash(keyHash) {
      const [row] = await execute(
        sql`select ${columns} from api_keys where key_hash = ${keyHash} and revoked_at is null`,
      );
      return row ? read(row) : null;
    },
    async touch(keyId, now) {
      await execute(sql`update api_keys set last_used_at = ${time(now)} where id = ${keyId}`);
    },
  };
}
