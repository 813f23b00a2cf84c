/**
 * A memory of a source session is embedded with the one before it in that session as context
 * (docs/memory.md#embeddings), on embedding path version 2. The first index finds that one (the
 * session's last row created before the memory); the column keeps which memory a vector took as
 * context, so forgetting that memory drops the vectors it went into (the index finds them), and
 * they are embedded again without it.
 *
 * A memory without a session is embedded alone on version 2 as on version 1, so its version-1
 * vector is carried over (same model, same width, same content hash) instead of embedded again:
 * after the upgrade only session memories wait for the model, and search keeps finding the rest
 * by meaning meanwhile. The embedder drops the version-1 vectors once version 2 covers every row.
 */
import type { MigrationSource } from "./migration-source.ts";

/** Version-1 vectors of memories without a session, copied to version 2. */
export const carriedOverVectors =
  "insert into memory_embeddings (account_id, memory_id, scope, model_id, dimensions, version, content_hash, embedding, context_id, created_at) select e.account_id, e.memory_id, e.scope, e.model_id, e.dimensions, 2, e.content_hash, e.embedding, null, e.created_at from memory_embeddings e join memories m on m.id = e.memory_id and m.content_hash = e.content_hash where e.version = 1 and m.source_session_id is null on conflict do nothing";

const statements = [
  "create index memories_session_order_index on memories (account_id, scope, source_session_id, created_at, id) where source_session_id is not null",
  "alter table memory_embeddings add column context_id varchar(36) null",
  "create index memory_embeddings_context_index on memory_embeddings (context_id) where context_id is not null",
  carriedOverVectors,
];

export const memorySessionContext: MigrationSource = {
  name: "0027-memory-session-context",
  sqlite: statements,
  postgresql: statements,
};
