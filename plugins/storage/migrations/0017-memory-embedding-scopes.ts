/**
 * Each vector carries its memory's scope (a memory never changes scope), so a vector search within
 * one scope filters the HNSW scan's rows without a lookup in `memories` for each: pgvector's
 * iterative scan walks past every other scope's vectors to gather one scope's nearest, and that
 * lookup was most of a scoped search's time (test/bench/RESULTS.md). Vectors stored before this
 * have no scope and are checked against `memories` as before; new and re-embedded ones get it.
 * Nothing is backfilled: on PostgreSQL an update of every vector would insert each again into its
 * HNSW index.
 */
import type { MigrationSource } from "./migration-source.ts";

export const memoryEmbeddingScopes: MigrationSource = {
  name: "0017-memory-embedding-scopes",
  sqlite: ["alter table memory_embeddings add column scope varchar(128) null"],
  postgresql: ["alter table memory_embeddings add column scope varchar(128) null"],
};
