/**
 * Issue 43: sandbox snapshots (docs/sandboxes.md#snapshots), API key roles (docs/api.md#api-keys:
 * `admin` or `member`, every existing key `admin`), and what the activity feed records beyond
 * commands and files (docs/sandboxes.md#activity): the key that acted, a size, a detail line.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = (timestamp: string, double: string) => [
  "alter table api_keys add column role varchar(16) not null default 'admin'",
  `create table sandbox_snapshots (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, session_id varchar(36) not null, label varchar(200) null, size varchar(16) not null, storage_gb ${double} null, image_id varchar(36) null, runtime varchar(32) not null, status varchar(16) not null, size_bytes bigint not null, handle varchar(253) null, created_at ${timestamp} not null)`,
  "create index sandbox_snapshots_account_created_index on sandbox_snapshots (account_id, created_at)",
  "alter table sandbox_activity add column key_id varchar(36) null",
  "alter table sandbox_activity add column bytes bigint null",
  "alter table sandbox_activity add column detail text null",
];

export const snapshotsAndKeyRoles: MigrationSource = {
  name: "0025-snapshots-and-key-roles",
  sqlite: statements("datetime", "double"),
  postgresql: statements("timestamptz", "double precision"),
};
