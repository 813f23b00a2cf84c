/**
 * Sandbox preview links (docs/sandboxes.md#previews), shared by every replica and kept over a
 * restart: the token only as its SHA-256 digest (base64url), the link's public id, its account,
 * sandbox and port, and when it was made, expires and was revoked. Links go with their account
 * and sandbox; expired ones are swept by the reaper.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = (timestamp: string) => [
  `create table preview_links (token_digest varchar(64) not null primary key, token_id varchar(40) not null, account_id varchar(36) not null references accounts (id) on delete cascade, session_id varchar(36) not null references sandbox_sessions (id) on delete cascade, port integer not null, created_at ${timestamp} not null, expires_at ${timestamp} not null, revoked_at ${timestamp} null)`,
  "create index preview_links_session_token_index on preview_links (session_id, token_id)",
  "create index preview_links_expires_at_index on preview_links (expires_at)",
];

export const previewLinks: MigrationSource = {
  name: "0026-preview-links",
  sqlite: statements("datetime"),
  postgresql: statements("timestamptz"),
};
