/**
 * A version per (account, scope) in `memory_counts`, raised by every change to the account's
 * memories (a row posted, merged, superseded, related, forgotten or backfilled). Their sum is the
 * account's version: search threads keep what recall reads in memory under it and never serve it
 * once the account has changed (core/memory/recall-cache.ts).
 */
import type { MigrationSource } from "./migration-source.ts";

export const memoryIndexVersions: MigrationSource = {
  name: "0016-memory-index-versions",
  sqlite: ["alter table memory_counts add column version integer not null default 0"],
  postgresql: ["alter table memory_counts add column version bigint not null default 0"],
};
