/**
 * Forgetting a memory makes the rows it had superseded current again (docs/memory.md#forget):
 * they are found by their `superseded_by_id`, through this index of the few rows that have one,
 * instead of a pass over the account's rows.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = [
  "create index memories_superseded_by_index on memories (account_id, superseded_by_id) where superseded_by_id is not null",
];

export const memorySupersededByIndex: MigrationSource = {
  name: "0021-memory-superseded-by-index",
  sqlite: statements,
  postgresql: statements,
};
