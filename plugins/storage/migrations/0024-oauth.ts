/**
 * The OAuth 2.1 authorization server for /mcp (docs/mcp.md#connecting-as-a-remote-connector-oauth):
 * registered clients, authorization codes (single use: `used_at`, and the grant a code was
 * exchanged for, which a replay revokes), grants (a token family, listed and revoked with the
 * account's API keys) and their access and refresh tokens. Codes and tokens are SHA-256 digests.
 * Grants and codes go with their account; tokens with their grant. A client id is text: a client
 * may be an https URL (a client ID metadata document), never stored in oauth_clients.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = (timestamp: string) => [
  `create table oauth_clients (id varchar(64) not null primary key, name varchar(200) not null, redirect_uris text not null, grant_types text not null, token_endpoint_auth_method varchar(32) not null, secret_hash varchar(64) null, created_at ${timestamp} not null)`,
  `create table oauth_codes (code_hash varchar(64) not null primary key, client_id text not null, account_id varchar(36) not null references accounts (id) on delete cascade, redirect_uri text not null, code_challenge varchar(128) not null, resource text not null, scope varchar(200) not null, expires_at ${timestamp} not null, used_at ${timestamp} null, grant_id varchar(36) null)`,
  "create index oauth_codes_expires_at_index on oauth_codes (expires_at)",
  `create table oauth_grants (id varchar(36) not null primary key, account_id varchar(36) not null references accounts (id) on delete cascade, client_id text not null, client_name varchar(200) not null, resource text not null, scope varchar(200) not null, created_at ${timestamp} not null, revoked_at ${timestamp} null, last_used_at ${timestamp} null)`,
  "create index oauth_grants_account_id_index on oauth_grants (account_id)",
  "create index oauth_grants_client_id_index on oauth_grants (client_id)",
  `create table oauth_tokens (token_hash varchar(64) not null primary key, grant_id varchar(36) not null references oauth_grants (id) on delete cascade, kind varchar(16) not null, expires_at ${timestamp} not null, used_at ${timestamp} null)`,
  "create index oauth_tokens_grant_id_index on oauth_tokens (grant_id)",
  "create index oauth_tokens_expires_at_index on oauth_tokens (expires_at)",
];

export const oauth: MigrationSource = {
  name: "0024-oauth",
  sqlite: statements("datetime"),
  postgresql: statements("timestamptz"),
};
