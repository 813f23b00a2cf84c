/**
 * Memories, relations and the versioned embedding path. SQLite indexes memory tokens in a
 * contentless FTS5 table (secure-delete on, so a forgotten memory leaves no trace in the index);
 * PostgreSQL keeps the same tokens in a text[] column with a GIN index. Both are fed the tokens
 * core computes (core/memory/tokenize.ts), which is what makes lexical results identical.
 */
import type { MigrationSource } from "./migration-source.ts";

const memoryColumns = (timestamp: string, json: string, bigint: string) =>
  [
    "id varchar(36) not null primary key",
    "account_id varchar(36) not null references accounts (id) on delete cascade",
    "scope varchar(128) not null",
    "kind varchar(16) not null",
    "content text not null",
    "content_hash char(64) not null",
    `metadata ${json} not null`,
    "source_session_id varchar(36) null",
    "source_content text null",
    `document_date ${timestamp} null`,
    `event_dates ${json} not null`,
    "importance double precision not null",
    "access_count integer not null default 0",
    `last_accessed_at ${timestamp} null`,
    `expires_at ${timestamp} null`,
    `superseded_at ${timestamp} null`,
    "superseded_by_id varchar(36) null",
    `created_at ${timestamp} not null`,
    `updated_at ${timestamp} not null`,
    // Write order for search candidates: bumped on every write, equal order on both databases.
    `search_seq ${bigint} not null`,
  ].join(", ");

const relationTable = (timestamp: string) =>
  `create table memory_relations (account_id varchar(36) not null references accounts (id) on delete cascade, source_memory_id varchar(36) not null, target_memory_id varchar(36) not null, relation_type varchar(16) not null, confidence double precision not null, created_at ${timestamp} not null, primary key (source_memory_id, target_memory_id, relation_type))`;

// One-way digests of forgotten identities (scope, kind, content hash): never content.
const tombstoneTable = (timestamp: string) =>
  `create table memory_tombstones (account_id varchar(36) not null references accounts (id) on delete cascade, identity_digest char(64) not null, forgotten_at ${timestamp} not null, primary key (account_id, identity_digest))`;

const sharedIndexes = [
  "create unique index memories_identity_unique on memories (account_id, scope, kind, content_hash)",
  "create index memories_account_updated_index on memories (account_id, updated_at, id)",
  "create index memories_account_scope_updated_index on memories (account_id, scope, updated_at, id)",
  "create index memory_relations_target_index on memory_relations (target_memory_id)",
];

export const memories: MigrationSource = {
  name: "0002-memories",
  sqlite: [
    `create table memories (${memoryColumns("datetime", "json", "integer")})`,
    "create unique index memories_search_seq_unique on memories (search_seq)",
    relationTable("datetime"),
    tombstoneTable("datetime"),
    ...sharedIndexes,
    "create virtual table memory_fts using fts5(tokens, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')",
    "insert into memory_fts (memory_fts, rank) values ('secure-delete', 1)",
    "create table memory_embeddings (memory_id varchar(36) not null references memories (id) on delete cascade, model_id varchar(200) not null, dimensions integer not null, version integer not null, content_hash char(64) not null, embedding blob not null, created_at datetime not null, primary key (memory_id, model_id, dimensions, version))",
  ],
  postgresql: [
    "create sequence memory_search_seq",
    `create table memories (${memoryColumns("timestamptz", "jsonb", "bigint")}, search_tokens text[] not null)`,
    "create unique index memories_search_seq_unique on memories (search_seq)",
    "create index memories_search_tokens_index on memories using gin (search_tokens)",
    "create index memories_account_seq_index on memories (account_id, search_seq)",
    relationTable("timestamptz"),
    tombstoneTable("timestamptz"),
    ...sharedIndexes,
    "create extension if not exists vector",
    // One row per (memory, model, dimensions, version): changing the model never mixes spaces.
    "create table memory_embeddings (memory_id varchar(36) not null references memories (id) on delete cascade, model_id varchar(200) not null, dimensions integer not null, version integer not null, content_hash char(64) not null, embedding vector not null, created_at timestamptz not null, primary key (memory_id, model_id, dimensions, version))",
  ],
};
