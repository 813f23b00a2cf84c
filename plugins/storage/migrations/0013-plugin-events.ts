/**
 * The durable queue of plugin hooks (docs/plugins.md#hooks): one row per (event, subscribed
 * plugin), written before the request that caused the event answers, deleted once the hook ran;
 * a hook that throws is tried again at `due_at`. Rows a crash left are delivered after the
 * restart. And each sandbox's recent activity (commands run, files touched through the file
 * tools), kept bounded while the sandbox lives and moved into its `sandbox.destroyed` event.
 */
import type { MigrationSource } from "./migration-source.ts";

const tables = (seq: string, timestamp: string, boolean: string) => [
  `create table plugin_events (id varchar(36) not null primary key, plugin varchar(32) not null, event varchar(64) not null, account_id varchar(36) not null references accounts (id) on delete cascade, payload text not null, attempts integer not null, due_at ${timestamp} not null, created_at ${timestamp} not null, last_error text null)`,
  "create index plugin_events_due_index on plugin_events (due_at)",
  `create table sandbox_activity (${seq}, session_id varchar(36) not null references sandbox_sessions (id) on delete cascade, kind varchar(16) not null, subject text not null, operation varchar(16) null, exit_code integer null, timed_out ${boolean} null, at ${timestamp} not null)`,
  "create index sandbox_activity_session_index on sandbox_activity (session_id, kind, seq)",
];

export const pluginEvents: MigrationSource = {
  name: "0013-plugin-events",
  sqlite: tables("seq integer primary key autoincrement", "datetime", "integer"),
  postgresql: tables("seq bigint generated always as identity primary key", "timestamptz", "boolean"),
};
