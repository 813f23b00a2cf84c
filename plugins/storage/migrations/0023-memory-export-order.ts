/**
 * An export walks an account's rows a page at a time in creation order (docs/memory.md#export-and-import):
 * these indexes hand it each page after the last one's row, instead of sorting every row of the
 * account (their whole text, on the server's thread on SQLite) for every page.
 */
import type { MigrationSource } from "./migration-source.ts";

const statements = [
  "create index memories_account_created_index on memories (account_id, created_at, id)",
  "create index memories_account_scope_created_index on memories (account_id, scope, created_at, id)",
];

export const memoryExportOrder: MigrationSource = {
  name: "0023-memory-export-order",
  sqlite: statements,
  postgresql: statements,
};
