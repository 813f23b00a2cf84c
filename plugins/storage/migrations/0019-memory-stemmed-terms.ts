/**
 * Index and query terms became stems (core/memory/tokenize.ts `termOf`): "researching" is now
 * indexed as "research". The index written before holds the words as written, so it is emptied
 * here and every row marked unindexed; the store indexes them again when it opens
 * (`indexUnposted`, in batches of 500), before the server answers. Counts of rows stay; the
 * indexed lengths are summed again, and each scope's version moves so no cache serves the old
 * index.
 */
import type { MigrationSource } from "./migration-source.ts";

const reindex = [
  "update memories set index_length = null",
  "update memory_counts set total_length = 0, version = version + 1",
];

export const memoryStemmedTerms: MigrationSource = {
  name: "0019-memory-stemmed-terms",
  sqlite: ["delete from memory_postings", "delete from memory_terms", ...reindex],
  // Truncation leaves no dead rows behind for a million postings.
  postgresql: ["truncate memory_postings, memory_terms", ...reindex],
};
