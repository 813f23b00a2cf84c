/** Idempotency-Key records: the first response to a keyed POST, replayed for 24 hours. */
import type { MigrationSource } from "./migration-source.ts";

const table = (timestamp: string) =>
  `create table idempotency_records (scope_key char(64) not null primary key, request_hash char(64) not null, status integer null, content_type text null, body text null, created_at ${timestamp} not null)`;

export const idempotency: MigrationSource = {
  name: "0004-idempotency",
  sqlite: [table("datetime")],
  postgresql: [table("timestamptz")],
};
