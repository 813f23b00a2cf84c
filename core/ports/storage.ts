import type { MemoryStore } from "./memory-store.ts";

/**
 * Storage ports: what services need from the database, one repository per aggregate. The
 * MikroORM plugin implements them for SQLite and PostgreSQL; the same repository tests run on both.
 */

export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface AccountRepository {
  /** Throws ServiceError `email_taken` when the (normalised) email exists. */
  create(input: { email: string; passwordHash: string; now: Date }): Promise<AccountRecord>;
  findByEmail(email: string): Promise<AccountRecord | null>;
  findById(id: string): Promise<AccountRecord | null>;
}

export interface ApiKeyRepository {
  create(input: {
    accountId: string;
    name: string;
    prefix: string;
    keyHash: string;
    now: Date;
  }): Promise<ApiKeyRecord>;
  /** Newest first, revoked keys included. */
  list(accountId: string): Promise<ApiKeyRecord[]>;
  /** False when the key is unknown, another account's, or already revoked. */
  revoke(accountId: string, keyId: string, now: Date): Promise<boolean>;
  findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  touch(keyId: string, now: Date): Promise<void>;
}

export interface UsageFigures {
  activeSandboxes: number;
  totalSandboxesCreated: number;
  /** Sandbox seconds this calendar month (UTC), counting running sessions up to `now`. */
  monthlySandboxSeconds: number;
}

export interface UsageRepository {
  figures(accountId: string, now: Date): Promise<UsageFigures>;
}

export interface Storage {
  readonly dialect: "sqlite" | "postgresql";
  readonly memories: MemoryStore;
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly usage: UsageRepository;
  /** Cheap connectivity check for /health/ready. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
