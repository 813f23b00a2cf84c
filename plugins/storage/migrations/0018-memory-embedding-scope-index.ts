/**
 * A search within a small scope compares the scope's vectors exactly on PostgreSQL
 * (plugins/storage/memory-embeddings.ts): the account's vectors of one path and one scope are an
 * index range, read without the HNSW graph. The index replaces the (account, path) one, which is
 * its prefix: the account's lookups of every scope use it as before.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = [
  "create index memory_embeddings_account_path_scope_index on memory_embeddings (account_id, model_id, dimensions, version, scope)",
  "drop index memory_embeddings_account_path_index",
];

export const memoryEmbeddingScopeIndex: MigrationSource = {
  name: "0018-memory-embedding-scope-index",
  sqlite: statements,
  postgresql: statements,
};
