/** Custom sandbox images: a declarative spec per row and the outcome of its build (docs/api.md#images). */
import type { MigrationSource } from "./migration-source.ts";

const tables = (timestamp: string) => [
  `create table sandbox_images (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, label varchar(200) null, base varchar(64) not null, python_packages text not null, apt_packages text not null, npm_packages text not null, spec_hash varchar(64) not null, status varchar(16) not null, digest varchar(80) null, registry_ref varchar(512) null, layer_path text null, failure_reason text null, build_log_tail text null, created_at ${timestamp} not null, completed_at ${timestamp} null)`,
  "create index sandbox_images_account_created_index on sandbox_images (account_id, created_at)",
  "create index sandbox_images_account_spec_index on sandbox_images (account_id, spec_hash, status)",
  "create index sandbox_images_status_index on sandbox_images (status)",
];

export const sandboxImages: MigrationSource = {
  name: "0010-sandbox-images",
  sqlite: tables("datetime"),
  postgresql: tables("timestamptz"),
};
