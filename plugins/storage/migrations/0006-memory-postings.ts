/**
 * The inverted index search reads, kept by the memory store in both databases with the same
 * SQL: one posting per (account, term, memory) with the memory's scope, the term's count in the
 * memory and the memory's indexed length (none of which ever changes for a memory), the number
 * of memories each term occurs in, and each memory's indexed length (with the account's total in
 * memory_counts). Rows written before this migration are indexed when the store opens.
 */
import type { MigrationSource } from "./migration-source.ts";

const postings = (suffix: string) =>
  `create table memory_postings (account_id varchar(36) not null, term varchar(256) not null, memory_id varchar(36) not null references memories (id) on delete cascade, scope varchar(128) not null, tf integer not null, length integer not null, primary key (account_id, term, memory_id))${suffix}`;
const terms = (suffix: string) =>
  `create table memory_terms (account_id varchar(36) not null references accounts (id) on delete cascade, term varchar(256) not null, df integer not null, primary key (account_id, term))${suffix}`;
const shared = [
  "create index memory_postings_memory_index on memory_postings (memory_id)",
  "alter table memories add column index_length integer null",
  // The rows still to index (none once the store has opened): found without a table scan.
  "create index memories_unindexed_index on memories (id) where index_length is null",
];

export const memoryPostings: MigrationSource = {
  name: "0006-memory-postings",
  sqlite: [
    postings(" without rowid"),
    terms(" without rowid"),
    ...shared,
    "alter table memory_counts add column total_length integer not null default 0",
  ],
  postgresql: [
    postings(""),
    terms(""),
    ...shared,
    "alter table memory_counts add column total_length bigint not null default 0",
  ],
};
