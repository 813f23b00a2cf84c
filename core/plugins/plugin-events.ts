/**
 * The events a plugin hook can take (docs/plugins.md#hooks), with their payloads as JSON: what
 * the queue stores and the hook receives. Field names are snake_case, as on the wire.
 */

/** The bounds of a sandbox's activity log: the newest entries of each kind are kept. */
export const sandboxActivityLimits = {
  commands: 200,
  files: 500,
  /** Each other kind: processes, broker calls, terminal sessions, snapshots. */
  others: 200,
  commandCharacters: 2_000,
  pathCharacters: 1_024,
};

export interface SandboxDestroyedEvent {
  sandbox_id: string;
  account_id: string;
  /** `destroyed` (destroy_sandbox, or its sandbox found gone at start-up) or `expired` (the reaper). */
  reason: "destroyed" | "expired";
  created_at: string;
  ended_at: string;
  /** The newest 200 commands run with exec, oldest first; a command's text cut at 2,000 characters. */
  commands: Array<{ command: string; exit_code: number; timed_out: boolean; at: string }>;
  /**
   * The newest 500 files touched through the file tools, oldest first: `create` (file_create),
   * `edit` (str_replace), `view` (view). What commands do to files is not seen.
   */
  files: Array<{ path: string; operation: "create" | "edit" | "view"; at: string }>;
}

export interface MemoryRememberedEvent {
  account_id: string;
  memory_id: string;
  scope: string;
  kind: string;
  content: string;
  source_session_id: string | null;
  created_at: string;
}

export interface PluginEvents {
  "sandbox.destroyed": SandboxDestroyedEvent;
  "memory.remembered": MemoryRememberedEvent;
}

export type PluginEventName = keyof PluginEvents;

export const pluginEventNames: readonly PluginEventName[] = ["sandbox.destroyed", "memory.remembered"];
