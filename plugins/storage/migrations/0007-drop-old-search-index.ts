/**
 * Search reads the inverted index of 0006 alone: the SQLite FTS5 table, PostgreSQL's token
 * array and the write-order sequence that ordered their candidates go. FTS5 in particular could
 * not forget completely: its secure-delete removed an entry but left the term's bytes in the
 * index segments.
 */
import type { MigrationSource } from "./migration-source.ts";

export const dropOldSearchIndex: MigrationSource = {
  name: "0007-drop-old-search-index",
  sqlite: [
    "drop table memory_fts",
    "drop index memories_search_seq_unique",
    "alter table memories drop column search_seq",
  ],
  postgresql: [
    "drop index memories_search_tokens_index",
    "alter table memories drop column search_tokens",
    "drop index memories_account_seq_index",
    "drop index memories_search_seq_unique",
    "alter table memories drop column search_seq",
    "drop sequence memory_search_seq",
  ],
};
