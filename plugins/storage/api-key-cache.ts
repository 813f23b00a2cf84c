/**
 * API keys kept in memory on PostgreSQL, so a request is not a round trip to the database before
 * it starts (0.4 ms at p50, 1 ms at p95 of a recall; test/bench/RESULTS.md). A key found active
 * is kept for a minute at most, and only while this process hears the database say when keys
 * change:
 * - a trigger (migration 0020) notifies `cairn_api_keys` when a key is revoked, deleted (with its
 *   account, or by hand) or has its hash or account changed, and every replica listening forgets
 *   all the keys it keeps;
 * - a revoke made here forgets them before it returns, so this replica refuses the key at once;
 *   another replica does so when the notification arrives, about a millisecond after the commit;
 * - while the listening connection is down (the database restarting, a pooler that cannot
 *   LISTEN) nothing is kept and every request reads the key, as without the cache; it reconnects
 *   on its own;
 * - a lookup that began before a change, or before the listener came back, is not kept;
 * - a minute bounds what a change made without the trigger (`session_replication_role =
 *   replica`) can be missed for.
 * Unknown keys are never kept: a key created on one replica works on every other at once.
 */
import { LRUCache } from "lru-cache";
import pg from "pg";
import type { ApiKeyRecord, ApiKeyRepository, Logger } from "../../core/index.ts";

export const apiKeyChannel = "cairn_api_keys";

export interface CachedApiKeyRepository extends ApiKeyRepository {
  /** True while the listener hears key changes, so keys are kept. */
  isListening(): boolean;
  /** Stops listening; the repository then reads every key. */
  close(): Promise<void>;
}

export interface ApiKeyCacheOptions {
  databaseUrl: string;
  logger: Logger;
  /** How long a key is kept at most (ms). */
  ttl?: number;
  /** The wait before listening again after the connection is lost (ms). */
  retryDelay?: number;
  /** The time source the ttl is measured on (tests); `performance.now` by default. */
  now?: () => number;
}

export function cacheApiKeys(keys: ApiKeyRepository, options: ApiKeyCacheOptions): CachedApiKeyRepository {
  // Key hashes by key id, so a touch updates the kept record's last use.
  const hashes = new Map<string, string>();
  const kept = new LRUCache<string, ApiKeyRecord>({
    max: 10_000,
    ttl: options.ttl ?? 60_000,
    perf: { now: options.now ?? (() => performance.now()) },
    ttlResolution: 0,
    dispose: (record) => hashes.delete(record.id),
  });
  // Moves whenever kept keys may have changed: a lookup that began before is not kept.
  let generation = 0;
  let listening = false;
  let warned = false;
  let closed = false;
  // The listening connection, or the one trying to be.
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  function forgetAll() {
    generation++;
    kept.clear();
  }

  async function listen() {
    retry = undefined;
    // A database that accepts the connection but never answers is an outage too, not a wait.
    const connection = new pg.Client({
      connectionString: options.databaseUrl,
      connectionTimeoutMillis: 10_000,
    });
    current = connection;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (current === connection) current = undefined;
      listening = false;
      forgetAll();
      connection.end().catch(() => {});
      if (closed) return;
      // Once per outage: the attempts to listen again fail quietly until one succeeds.
      if (!warned)
        options.logger.warn(
          { reason: error?.message ?? "connection ended" },
          "API keys are read on every request until the key-change listener reconnects",
        );
      warned = true;
      retry = setTimeout(listen, options.retryDelay ?? 1_000);
      retry.unref();
    };
    connection.on("notification", forgetAll);
    connection.on("error", onLost);
    connection.on("end", () => onLost());
    try {
      await connection.connect();
      await connection.query(`listen ${apiKeyChannel}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (closed) return;
    // Anything that changed before the listener heard it is read again.
    forgetAll();
    listening = true;
    warned = false;
  }

  void listen();

  return {
    isListening: () => listening,
    create: (input) => keys.create(input),
    list: (accountId) => keys.list(accountId),
    async revoke(accountId, keyId, now) {
      try {
        return await keys.revoke(accountId, keyId, now);
      } finally {
        forgetAll();
      }
    },
    async findActiveByHash(keyHash) {
      const hit = listening ? kept.get(keyHash) : undefined;
      if (hit) return hit;
      const before = generation;
      const record = await keys.findActiveByHash(keyHash);
      if (record && listening && generation === before) {
        kept.set(keyHash, record);
        hashes.set(record.id, keyHash);
      }
      return record;
    },
    async touch(keyId, now) {
      // The kept record first: requests while the write waits for the database do not write again.
      const hash = hashes.get(keyId);
      const record = hash === undefined ? undefined : kept.peek(hash);
      if (record) record.lastUsedAt = now;
      await keys.touch(keyId, now);
    },
    async close() {
      closed = true;
      listening = false;
      clearTimeout(retry);
      // Not waited for: a database that stopped answering would hold the shutdown until a timeout.
      current?.end().catch(() => {});
    },
  };
}
