/**
 * Rows per (account, scope), kept by the memory store as it inserts and deletes. Search needs
 * the corpus size for IDF on every query; counting 100,000 rows each time cost milliseconds.
 */
import type { MigrationSource } from "./migration-source.ts";

const table = (bigint: string) =>
  `create table memory_counts (account_id varchar(36) not null references accounts (id) on delete cascade, scope varchar(128) not null, total ${bigint} not null, primary key (account_id, scope))`;
const backfill =
  "insert into memory_counts (account_id, scope, total) select account_id, scope, count(*) from memories group by account_id, scope";

export const memoryCounts: MigrationSource = {
  name: "0005-memory-counts",
  sqlite: [table("integer"), backfill],
  postgresql: [table("bigint"), backfill],
};
