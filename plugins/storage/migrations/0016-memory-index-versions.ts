/**
 * A version per (account, scope) in `memory_counts`, raised by every change to the account's
 * inverted index (a row posted, forgotten or backfilled). Their sum is the account's index
 * version: search threads keep a common term's postings in memory under it and never serve them
 * once the index has changed (core/memory/postings-cache.ts).
 */
import type { MigrationSource } from "./index.ts";

export const memoryIndexVersions: MigrationSource = {
  name: "0016-memory-index-versions",
  sqlite: ["alter table memory_counts add column version integer not null default 0"],
  postgresql: ["alter table memory_counts add column version bigint not null default 0"],
};
