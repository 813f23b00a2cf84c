/** Per-account command allowlists and encrypted secrets (sandbox sessions came with 0001). */
import type { MigrationSource } from "./migration-source.ts";

const tables = (timestamp: string, json: string) => [
  `create table account_allowlists (account_id varchar(36) not null primary key references accounts (id) on delete cascade, rules ${json} not null, updated_at ${timestamp} not null)`,
  `create table secrets (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, name varchar(200) not null, encrypted_value text not null, allowed_hosts ${json} not null, created_at ${timestamp} not null, last_used_at ${timestamp} null)`,
  "create unique index secrets_account_name_unique on secrets (account_id, name)",
];

export const sandboxAccess: MigrationSource = {
  name: "0003-sandbox-access",
  sqlite: tables("datetime", "json"),
  postgresql: tables("timestamptz", "jsonb"),
};
