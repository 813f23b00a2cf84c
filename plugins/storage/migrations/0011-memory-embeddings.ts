/**
 * Vectors for semantic search, one row per (memory, model, dimensions, version): the path a
 * vector belongs to, so two embedding spaces never mix and a new model fills a new path while the
 * old one still answers. The table 0002 created was never written (nothing computed embeddings
 * before this), so it is replaced by one that carries the account: a search filters by it without
 * a join, and the account's lookups have an index. SQLite keeps each vector as a BLOB of float32
 * little-endian values; PostgreSQL as a pgvector `vector` of no fixed width, so every path shares
 * the table. PostgreSQL's HNSW indexes are per path, created by the store when a path is first
 * used (plugins/storage/embedding-paths.ts), since an index needs a fixed width.
 */
import type { MigrationSource } from "./migration-source.ts";

const table = (vector: string, timestamp: string) =>
  `create table memory_embeddings (account_id varchar(36) not null references accounts (id) on delete cascade, memory_id varchar(36) not null references memories (id) on delete cascade, model_id varchar(200) not null, dimensions integer not null, version integer not null, content_hash char(64) not null, embedding ${vector} not null, created_at ${timestamp} not null, primary key (memory_id, model_id, dimensions, version))`;
const indexes = [
  "create index memory_embeddings_account_path_index on memory_embeddings (account_id, model_id, dimensions, version)",
];

export const memoryEmbeddings: MigrationSource = {
  name: "0011-memory-embeddings",
  sqlite: ["drop table memory_embeddings", table("blob", "datetime"), ...indexes],
  postgresql: ["drop table memory_embeddings", table("vector", "timestamptz"), ...indexes],
};
