/**
 * Search reads the inverted index of 0006 alone: the SQLite FTS5 table and PostgreSQL's token
 * array go. FTS5 in particular could not forget completely: its secure-delete removed an entry
 * but left the term's bytes in the index segments.
 */
import type { MigrationSource } from "./index.ts";

export const dropOldSearchIndex: MigrationSource = {
  name: "0007-drop-old-search-index",
  sqlite: ["drop table memory_fts"],
  postgresql: ["drop index memories_search_tokens_index", "alter table memories drop column search_tokens"],
};
