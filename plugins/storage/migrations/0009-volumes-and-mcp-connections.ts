/** Per-account persistent volumes and outbound-MCP connections (docs/api.md#volumes, #mcp-connections). */
import type { MigrationSource } from "./migration-source.ts";

const tables = (timestamp: string, double: string) => [
  `create table volumes (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, label varchar(200) null, size_gb ${double} not null, status varchar(16) not null, pvc_name varchar(253) null, failure_reason text null, created_at ${timestamp} not null)`,
  "create index volumes_account_created_index on volumes (account_id, created_at)",
  `create table mcp_connections (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, label varchar(200) not null, catalog_id varchar(64) not null, host varchar(253) not null, created_at ${timestamp} not null, last_used_at ${timestamp} null)`,
  "create unique index mcp_connections_account_label_unique on mcp_connections (account_id, label)",
];

export const volumesAndMcpConnections: MigrationSource = {
  name: "0009-volumes-and-mcp-connections",
  sqlite: tables("datetime", "double"),
  postgresql: tables("timestamptz", "double precision"),
};
