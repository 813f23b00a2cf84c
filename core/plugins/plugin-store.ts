/**
 * A plugin's key-value store for one account (docs/plugins.md#store): JSON values under string
 * keys, confined to the (plugin, account) pair it was made for. The bounds keep one plugin from
 * filling the database: keys of 1 to 256 characters, values of at most 64 KiB as JSON, 10,000
 * keys per plugin and account, lists of at most 1,000 entries a call. A value or a new key past
 * them is `payload_too_large` (the store, not the request, is full), a bad key `validation_error`.
 */
import { ServiceError } from "../errors.ts";
import type { PluginStoreRepository } from "../ports/plugin-storage.ts";

export const pluginStoreLimits = { keyLength: 256, valueBytes: 65_536, keys: 10_000, listLimit: 1_000 };

export interface PluginStoreListOptions {
  /** Only keys that start with it (default: every key). */
  prefix?: string;
  /** At most this many entries (default 100, at most 1,000). */
  limit?: number;
  /** Only keys after it, in key order: the last key of the previous page. */
  after?: string;
}

export interface PluginStore {
  /** The stored value, or null when the key holds none. */
  get<Value = unknown>(key: string): Promise<Value | null>;
  /** Stores a JSON value under the key, replacing what it held. */
  set(key: string, value: unknown): Promise<void>;
  /** Removes the key; false when it held nothing. */
  delete(key: string): Promise<boolean>;
  /** Entries in key order. */
  list<Value = unknown>(options?: PluginStoreListOptions): Promise<Array<{ key: string; value: Value }>>;
}

function checkKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0 || key.length > pluginStoreLimits.keyLength) {
    // No details: a detail's loc names a field of the operation's input, and the key is the
    // plugin's argument to its store, which transports could only misplace in the request.
    throw new ServiceError(
      "validation_error",
      `Invalid plugin store key: must be 1 to ${pluginStoreLimits.keyLength} characters`,
    );
  }
  return key;
}

export function createPluginStore(
  repository: PluginStoreRepository,
  plugin: string,
  accountId: string,
  now: () => Date,
): PluginStore {
  return {
    async get<Value>(key: string) {
      const entry = await repository.get(plugin, accountId, checkKey(key));
      return entry ? (JSON.parse(entry.value) as Value) : null;
    },
    async set(key, value) {
      checkKey(key);
      const text = JSON.stringify(value);
      if (text === undefined) throw new ServiceError("validation_error", "A plugin store value must be JSON");
      if (new TextEncoder().encode(text).length > pluginStoreLimits.valueBytes) {
        throw new ServiceError(
          "payload_too_large",
          `A plugin store value is at most ${pluginStoreLimits.valueBytes} bytes as JSON`,
        );
      }
      if (!(await repository.set(plugin, accountId, key, text, now(), pluginStoreLimits.keys))) {
        throw new ServiceError(
          "payload_too_large",
          `The ${plugin} plugin holds ${pluginStoreLimits.keys} keys for this account; delete some first`,
          { details: { limit: pluginStoreLimits.keys } },
        );
      }
    },
    delete: (key) => repository.delete(plugin, accountId, checkKey(key)),
    async list<Value>(options: PluginStoreListOptions = {}) {
      const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? 100)), pluginStoreLimits.listLimit);
      const entries = await repository.list(plugin, accountId, {
        prefix: options.prefix ?? "",
        limit,
        after: options.after,
      });
      return entries.map((entry) => ({ key: entry.key, value: JSON.parse(entry.value) as Value }));
    },
  };
}
