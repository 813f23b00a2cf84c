/**
 * The durable queue of relation detection: a write commits its memories, their index entries and
 * one job per memory in one transaction and answers; the linker (core/memory/linker.ts) compares
 * each job's memory with the memories written before it, stores the edges and supersessions, and
 * deletes the job in the same transaction. Jobs left by a crash are linked at the next start.
 * `batch_id` groups an import's memories, which are linked to what the account had before, not to
 * each other; `inserted` tells a new row from a merge into an existing one.
 */
import type { MigrationSource } from "./migration-source.ts";

const columns = (seq: string, timestamp: string, boolean: string) =>
  `(${seq}, account_id varchar(36) not null references accounts (id) on delete cascade, memory_id varchar(36) not null references memories (id) on delete cascade, batch_id varchar(36) null, inserted ${boolean} not null, enqueued_at ${timestamp} not null)`;
const indexes = [
  "create index memory_link_jobs_account_index on memory_link_jobs (account_id, seq)",
  "create index memory_link_jobs_memory_index on memory_link_jobs (memory_id, seq)",
];

export const memoryLinkJobs: MigrationSource = {
  name: "0008-memory-link-jobs",
  sqlite: [
    `create table memory_link_jobs ${columns("seq integer primary key autoincrement", "datetime", "integer")}`,
    ...indexes,
  ],
  postgresql: [
    `create table memory_link_jobs ${columns("seq bigint generated always as identity primary key", "timestamptz", "boolean")}`,
    ...indexes,
  ],
};
