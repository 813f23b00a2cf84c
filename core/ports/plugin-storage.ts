/**
 * What the plugin host keeps in storage (docs/plugins.md): plugins' key-value stores, the durable
 * queue of hook deliveries, and sandboxes' recent activity for `sandbox.destroyed`.
 */

export interface PluginStoreEntry {
  key: string;
  /** JSON text. */
  value: string;
  updatedAt: Date;
}

/** Key-value rows per (plugin, account); every method is confined to the pair it is given. */
export interface PluginStoreRepository {
  get(plugin: string, accountId: string, key: string): Promise<PluginStoreEntry | null>;
  /**
   * Writes the value. A new key is refused (false, nothing written) when the pair already holds
   * `maxKeys`; counting and inserting are one transaction, so racing writes cannot pass the cap.
   */
  set(
    plugin: string,
    accountId: string,
    key: string,
    value: string,
    now: Date,
    maxKeys: number,
  ): Promise<boolean>;
  delete(plugin: string, accountId: string, key: string): Promise<boolean>;
  /** Entries whose key starts with `prefix`, in key order, at most `limit`, after `after` when given. */
  list(
    plugin: string,
    accountId: string,
    options: { prefix: string; limit: number; after?: string },
  ): Promise<PluginStoreEntry[]>;
}

export interface PluginEventRecord {
  id: string;
  plugin: string;
  event: string;
  accountId: string;
  /** The event as JSON text. */
  payload: string;
  /** Deliveries tried so far. */
  attempts: number;
  dueAt: Date;
  createdAt: Date;
}

/** The queue of hook deliveries: a row per (event, plugin), deleted once delivered. */
export interface PluginEventQueue {
  enqueue(events: readonly PluginEventRecord[]): Promise<void>;
  /** Rows of the given plugins due at `now`, oldest first (a plugin no longer loaded keeps its rows). */
  due(now: Date, plugins: readonly string[], limit: number): Promise<PluginEventRecord[]>;
  /** When the next row of the given plugins falls due, or null when they have none. */
  nextDue(plugins: readonly string[]): Promise<Date | null>;
  /** A failed delivery: tried `attempts` times, next at `dueAt`. */
  reschedule(id: string, attempts: number, dueAt: Date, lastError: string): Promise<void>;
  remove(id: string): Promise<void>;
  count(): Promise<number>;
}

export type SandboxActivity =
  | { kind: "command"; command: string; exitCode: number; timedOut: boolean; at: Date }
  | { kind: "file"; path: string; operation: "create" | "edit" | "view"; at: Date };

/** A sandbox's recent activity, newest `keep` entries of each kind. */
export interface SandboxActivityLog {
  record(sessionId: string, activity: SandboxActivity, keep: number): Promise<void>;
  /** The session's entries, oldest first. */
  list(sessionId: string): Promise<SandboxActivity[]>;
  /** Forgets the session's entries (once its event is queued). */
  clear(sessionId: string): Promise<void>;
}
