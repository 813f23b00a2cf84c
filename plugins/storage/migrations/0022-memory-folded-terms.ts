/**
 * Index and query terms lost their accents, gained "cplusplus" and "csharp", and read written
 * dates as ISO dates (core/memory/tokenize.ts `normaliseText`): "Zürich" is now indexed as
 * "zurich", "March 14, 2026" as "2026 03 14". As in 0019, the
 * index written before is emptied and every row marked unindexed; the store indexes them again
 * when it opens (`indexUnposted`, in batches of 500), before the server answers, and each scope's
 * version moves so no cache serves the old index.
 */
import type { MigrationSource } from "./migration-source.ts";

const reindex = [
  "update memories set index_length = null",
  "update memory_counts set total_length = 0, version = version + 1",
];

export const memoryFoldedTerms: MigrationSource = {
  name: "0022-memory-folded-terms",
  sqlite: ["delete from memory_postings", "delete from memory_terms", ...reindex],
  postgresql: ["truncate memory_postings, memory_terms", ...reindex],
};
