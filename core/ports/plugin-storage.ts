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

/** What the file operations record: the tools' create, edit, view; raw write and read; list, glob, grep. */
export type FileActivityOperation = "create" | "edit" | "view" | "write" | "read" | "list" | "glob" | "grep";

/** Who acted and how much moved, on every kind of entry (docs/sandboxes.md#activity). */
export interface ActivityFacts {
  at: Date;
  /** The API key that made the call (the account is the sandbox's); null when unknown. */
  keyId?: string | null;
  /** Bytes written or read, or the response's size; never the bytes themselves. */
  bytes?: number | null;
  /** A short line more (a process id, an HTTP status), never file contents or a secret. */
  detail?: string | null;
}

export type SandboxActivity = ActivityFacts &
  (
    | { kind: "command"; command: string; exitCode: number; timedOut: boolean }
    | { kind: "file"; path: string; operation: FileActivityOperation }
    | {
        kind: "process" | "broker" | "terminal" | "snapshot";
        /** The process's command, the request's method and URL without its query, … */
        subject: string;
        operation: string;
        exitCode?: number | null;
      }
  );

/** An entry as stored, with its place in the sandbox's log (increasing, never reused). */
export type StoredSandboxActivity = SandboxActivity & { seq: number };

/** A sandbox's recent activity, newest `keep` entries of each kind. */
export interface SandboxActivityLog {
  record(sessionId: string, activity: SandboxActivity, keep: number): Promise<void>;
  /** The session's entries, oldest first. */
  list(sessionId: string): Promise<StoredSandboxActivity[]>;
  /** A page of the session's entries, newest first, and how many it holds. */
  page(
    sessionId: string,
    offset: number,
    limit: number,
  ): Promise<{ entries: StoredSandboxActivity[]; total: number }>;
  /** Entries after `seq`, oldest first, at most `limit` (a live feed's next batch). */
  after(sessionId: string, seq: number, limit: number): Promise<StoredSandboxActivity[]>;
  /** Forgets the session's entries (once its event is queued). */
  clear(sessionId: string): Promise<void>;
}
