/**
 * A session's end and the promise of its `sandbox.destroyed` event are one write: `end` sets
 * `end_event_pending` in the statement that ends the session (when a loaded plugin hooks the
 * event), and the plugin host clears it once the event is in the queue. A server that dies in
 * between finds the flag at its next start and writes the event then (docs/plugins.md#delivery).
 */
import type { MigrationSource } from "./migration-source.ts";

export const sandboxEndEvents: MigrationSource = {
  name: "0015-sandbox-end-events",
  sqlite: ["alter table sandbox_sessions add column end_event_pending integer not null default 0"],
  postgresql: ["alter table sandbox_sessions add column end_event_pending boolean not null default false"],
};
