/**
 * API keys kept in memory on PostgreSQL: two replicas on one database refuse a revoked key (the
 * one that revoked it at once, the other once it hears the change), changes made in SQL are heard
 * too, and nothing is kept while the listener is down or past the time limit.
 */
import { type AddressInfo, createServer, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiKeyRecord, type ApiKeyRepository, silentLogger } from "../../core/index.ts";
import { eventually } from "../../test/support/eventually.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../../test/support/platforms.ts";
import { apiKeyChannel, type CachedApiKeyRepository, cacheApiKeys } from "./api-key-cache.ts";
import { createApiKeyRepository } from "./repositories.ts";

describe("API keys kept in memory on PostgreSQL", () => {
  let first: TestPlatform;
  let second: TestPlatform;
  let sql: pg.Client;
  const caches: CachedApiKeyRepository[] = [];

  beforeAll(async () => {
    first = await createTestPlatform("postgresql", {
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    });
    second = await createTestPlatform("postgresql", {
      databaseUrl: first.databaseUrl,
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    });
    sql = new pg.Client({ connectionString: first.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await Promise.all(caches.map((cache) => cache.close()));
    await sql.end();
    await second.close();
    await first.close();
  });

  const accountStatus = async (test: TestPlatform, key: string) =>
    (await test.request("/v1/account", { credential: key })).status;
  const refused = (test: TestPlatform, key: string) => async () =>
    (await accountStatus(test, key)) === 401 ? true : undefined;

  /** The key repository of the first replica's database, kept in memory by a cache of the test's own. */
  function cached(options: { retryDelay?: number; now?: () => number } = {}) {
    const storage = first.platform.storage;
    const warnings: unknown[] = [];
    const logger = { ...silentLogger, warn: (...args: unknown[]) => warnings.push(args) };
    const cache = cacheApiKeys(createApiKeyRepository(storage.execute, storage.dialect), {
      databaseUrl: first.databaseUrl as string,
      logger: logger as typeof silentLogger,
      ...options,
    });
    caches.push(cache);
    return { cache, warnings };
  }

  async function newKey() {
    const owner = await createAccountWithKey(first);
    const [row] = (await sql.query("select key_hash from api_keys where id = $1", [owner.keyId])).rows;
    return { ...owner, hash: row.key_hash as string };
  }

  /** Revokes a key without firing triggers, as a restore or a replication apply would. */
  async function revokeUnheard(keyId: string) {
    await sql.query("begin");
    await sql.query("set local session_replication_role = replica");
    await sql.query("update api_keys set revoked_at = now() where id = $1", [keyId]);
    await sql.query("commit");
  }

  const listenerBackends = async () =>
    (
      await sql.query("select pid from pg_stat_activity where datname = current_database() and query = $1", [
        `listen ${apiKeyChannel}`,
      ])
    ).rows.map((row) => row.pid as number);

  it("refuses a key revoked on one replica there at once, and on the other once it hears it", async () => {
    const owner = await newKey();
    expect(await accountStatus(first, owner.key)).toBe(200);
    expect(await accountStatus(second, owner.key)).toBe(200);
    const revoked = await first.request(`/v1/api-keys/${owner.keyId}`, {
      method: "DELETE",
      credential: owner.token,
    });
    expect(revoked.status).toBe(204);
    expect(await accountStatus(first, owner.key)).toBe(401);
    await eventually(refused(second, owner.key));
  });

  it("hears a key revoked in SQL and a key deleted with its account", async () => {
    const revoked = await newKey();
    const deleted = await newKey();
    for (const { key } of [revoked, deleted]) {
      expect(await accountStatus(first, key)).toBe(200);
      expect(await accountStatus(second, key)).toBe(200);
    }
    await sql.query("update api_keys set revoked_at = now() where id = $1", [revoked.keyId]);
    await sql.query("delete from accounts where id = $1", [deleted.accountId]);
    for (const test of [first, second])
      for (const { key } of [revoked, deleted]) await eventually(refused(test, key));
  });

  it("notifies for a revoke, a new hash and a delete, not for a last use or a new name", async () => {
    const watcher = new pg.Client({ connectionString: first.databaseUrl });
    await watcher.connect();
    try {
      let heard = 0;
      watcher.on("notification", () => heard++);
      await watcher.query(`listen ${apiKeyChannel}`);
      const owner = await newKey();
      const keys = first.platform.storage.apiKeys;
      // Notifications arrive in commit order: one for the touch or the rename would come first.
      await keys.touch(owner.keyId, new Date());
      await sql.query("update api_keys set name = 'renamed' where id = $1", [owner.keyId]);
      await keys.revoke(owner.accountId, owner.keyId, new Date());
      await eventually(async () => (heard > 0 ? true : undefined));
      expect(heard).toBe(1);
      await sql.query("update api_keys set key_hash = md5(key_hash) where id = $1", [owner.keyId]);
      await eventually(async () => (heard > 1 ? true : undefined));
      await sql.query("delete from api_keys where id = $1", [owner.keyId]);
      await eventually(async () => (heard > 2 ? true : undefined));
      expect(heard).toBe(3);
    } finally {
      await watcher.end();
    }
  });

  it("keeps a key for the time limit when a change is not heard", async () => {
    let now = 1_000;
    const { cache } = cached({ now: () => now });
    await eventually(async () => (cache.isListening() ? true : undefined));
    const owner = await newKey();
    expect(await cache.findActiveByHash(owner.hash)).toMatchObject({ id: owner.keyId });
    await revokeUnheard(owner.keyId);
    // Kept: the database was not asked again.
    expect(await cache.findActiveByHash(owner.hash)).toMatchObject({ id: owner.keyId });
    now += 60_001;
    expect(await cache.findActiveByHash(owner.hash)).toBeNull();
  });

  it("records a key's last use in the database and in the key it keeps", async () => {
    const { cache } = cached();
    await eventually(async () => (cache.isListening() ? true : undefined));
    const owner = await newKey();
    expect(await cache.findActiveByHash(owner.hash)).toMatchObject({ lastUsedAt: null });
    const used = new Date("2026-11-28T12:00:00.000Z");
    await cache.touch(owner.keyId, used);
    // A key used a minute ago is not touched again on every request (core/invoke.ts).
    expect(await cache.findActiveByHash(owner.hash)).toMatchObject({ lastUsedAt: used });
    const [row] = (await sql.query("select last_used_at from api_keys where id = $1", [owner.keyId])).rows;
    expect(row.last_used_at).toEqual(used);
  });

  it("keeps nothing while the listener is down, and forgets what it kept when it listens again", async () => {
    const { cache, warnings } = cached({ retryDelay: 500 });
    await eventually(async () => (cache.isListening() ? true : undefined));
    const kept = await newKey();
    expect(await cache.findActiveByHash(kept.hash)).not.toBeNull();
    await sql.query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid", [
      await listenerBackends(),
    ]);
    // Down (it waits half a second before listening again): a key is read on every lookup.
    await eventually(async () => (cache.isListening() ? undefined : true), { intervalMilliseconds: 10 });
    const read = await newKey();
    expect(await cache.findActiveByHash(read.hash)).not.toBeNull();
    await revokeUnheard(read.keyId);
    expect(await cache.findActiveByHash(read.hash)).toBeNull();
    expect(warnings.length).toBeGreaterThan(0);
    await eventually(async () => (cache.isListening() ? true : undefined));
    // What was kept before the loss is not kept any more.
    await revokeUnheard(kept.keyId);
    expect(await cache.findActiveByHash(kept.hash)).toBeNull();
    // And keys are kept again.
    const again = await newKey();
    expect(await cache.findActiveByHash(again.hash)).not.toBeNull();
    await revokeUnheard(again.keyId);
    expect(await cache.findActiveByHash(again.hash)).not.toBeNull();
  });

  it("closes at once while its listener waits on a database that never answers", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const cache = cacheApiKeys(first.platform.storage.apiKeys, {
        databaseUrl: `postgres://cairn@127.0.0.1:${port}/cairn`,
        logger: silentLogger,
      });
      await eventually(async () => (sockets.length > 0 ? true : undefined));
      expect(cache.isListening()).toBe(false);
      // Waiting for the connection still trying to end would take its ten-second timeout.
      await cache.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 5_000);

  it("does not keep a key whose lookup began before a revoke", async () => {
    const record: ApiKeyRecord = {
      id: "key-1",
      accountId: "account-1",
      name: "test",
      prefix: "cairn_abcdefgh",
      keyHash: "hash-1",
      createdAt: new Date(),
      revokedAt: null,
      lastUsedAt: null,
      role: "admin",
    };
    let lookups = 0;
    let release = (_record: ApiKeyRecord | null) => {};
    const slow: ApiKeyRepository = {
      create: async () => record,
      list: async () => [record],
      revoke: async () => true,
      touch: async () => {},
      findActiveByHash: () => {
        lookups++;
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    };
    const cache = cacheApiKeys(slow, { databaseUrl: first.databaseUrl as string, logger: silentLogger });
    caches.push(cache);
    await eventually(async () => (cache.isListening() ? true : undefined));
    const early = cache.findActiveByHash("hash-1");
    await cache.revoke("account-1", "key-1", new Date());
    release(record);
    expect(await early).toBe(record);
    const next = cache.findActiveByHash("hash-1");
    expect(lookups).toBe(2);
    release(record);
    await next;
    // That one began after the revoke: kept.
    expect(await cache.findActiveByHash("hash-1")).toBe(record);
    expect(lookups).toBe(2);
  });
});
