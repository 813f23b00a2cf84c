/**
 * A memory of a source session is embedded with the one before it in that session as context
 * (docs/memory.md#embeddings): the first index finds that one (the session's last row created
 * before the memory); the column keeps which memory a vector took as context, so forgetting that
 * memory drops the vectors it went into (the index finds them), and they are embedded again
 * without it.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = [
  "create index memories_session_order_index on memories (account_id, scope, source_session_id, created_at, id) where source_session_id is not null",
  "alter table memory_embeddings add column context_id varchar(36) null",
  "create index memory_embeddings_context_index on memory_embeddings (context_id) where context_id is not null",
];

export const memorySessionContext: MigrationSource = {
  name: "0027-memory-session-context",
  sqlite: statements,
  postgresql: statements,
};
