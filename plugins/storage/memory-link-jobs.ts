/**
 * The link queue: writes waiting for relation detection, in order, a batch taken as a whole,
 * and each scope's newest rows a job is compared with.
 */
import type { LinkCandidate, MemoryStore } from "../../core/index.ts";
import { idChunk, type MemoryContext } from "./memory-context.ts";
import { list, type Sql, sql } from "./sql-statement.ts";

type LinkJobMethods = Pick<
  MemoryStore,
  "recent" | "enqueueLinks" | "linkJobs" | "linkAccounts" | "completeLinks"
>;

type JobRow = {
  seq: number | string;
  memory_id: string;
  batch_id: string | null;
  inserted: boolean | number;
  enqueued_at: unknown;
};

const jobColumns = sql`seq, memory_id, batch_id, inserted, enqueued_at`;

const toJob = (row: JobRow) => ({
  seq: Number(row.seq),
  memoryId: row.memory_id,
  batchId: row.batch_id,
  inserted: Boolean(row.inserted),
  enqueuedAt: new Date(row.enqueued_at as string | number | Date),
});

export function createLinkJobMethods({ run, sqlite, time, readTime, live }: MemoryContext): LinkJobMethods {
  return {
    async recent(accountId, limits, now, linkedThrough) {
      const candidate = (row: Record<string, unknown>): LinkCandidate => ({
        id: row.id as string,
        content: row.content as string,
        expiresAt: readTime(row.expires_at),
        supersededAt: readTime(row.superseded_at),
        supersededById: (row.superseded_by_id as string | null) ?? null,
        updatedAt: readTime(row.updated_at) as Date,
      });
      // A scope's newest rows; a row inserted by a job still queued after the ones being linked
      // was written after them.
      const newest = (scope: Sql, limit: Sql) =>
        sql`select id, content, expires_at, superseded_at, superseded_by_id, updated_at from memories
           where account_id = ${accountId} and scope = ${scope} and ${live(now)}
           and not exists (select 1 from memory_link_jobs j where j.memory_id = memories.id and j.inserted = ${true} and j.seq > ${linkedThrough})
           order by updated_at desc, id desc limit ${limit}`;
      const recent = new Map<string, LinkCandidate[]>();
      if (sqlite) {
        // In process, a statement per scope costs no round trip.
        for (const [scope, limit] of limits) {
          const found = await run(newest(sql`${scope}`, sql`${limit}`));
          recent.set(scope, found.map(candidate));
        }
        return recent;
      }
      // Every scope in one round trip: each scope's newest rows through its own index scan.
      const found = await run(
        sql`select s.scope as linked_scope, r.* from unnest(${[...limits.keys()]}::varchar[], ${[...limits.values()]}::int[]) with ordinality as s(scope, n, position)
           cross join lateral (${newest(sql`s.scope`, sql`s.n`)}) r
           order by s.position, r.updated_at desc, r.id desc`,
      );
      for (const scope of limits.keys()) recent.set(scope, []);
      for (const row of found) recent.get(row.linked_scope as string)?.push(candidate(row));
      return recent;
    },

    async enqueueLinks(accountId, jobs, at) {
      if (jobs.length === 0) return;
      if (sqlite) {
        const rows = JSON.stringify(jobs.map((job) => [job.memoryId, job.batchId, job.inserted ? 1 : 0]));
        await run(
          sql`insert into memory_link_jobs (account_id, memory_id, batch_id, inserted, enqueued_at)
             select ${accountId}, value ->> 0, value ->> 1, value ->> 2, ${time(at)} from json_each(${rows}) order by key`,
        );
        return;
      }
      await run(
        sql`insert into memory_link_jobs (account_id, memory_id, batch_id, inserted, enqueued_at)
           select ${accountId}, memory_id, batch_id, inserted, ${time(at)} from unnest(${jobs.map((job) => job.memoryId)}::varchar[], ${jobs.map((job) => job.batchId)}::varchar[], ${jobs.map((job) => job.inserted)}::boolean[]) with ordinality as t(memory_id, batch_id, inserted, position) order by position`,
      );
    },

    async linkJobs(accountId, limit) {
      const jobs = (
        await run<JobRow>(
          sql`select ${jobColumns} from memory_link_jobs where account_id = ${accountId} order by seq limit ${limit}`,
        )
      ).map(toJob);
      const last = jobs.at(-1);
      if (last?.batchId == null || jobs.length < limit) return jobs;
      // A batch is linked as a whole: its rows are set apart from each other.
      const rest = await run<JobRow>(
        sql`select ${jobColumns} from memory_link_jobs where account_id = ${accountId} and batch_id = ${last.batchId} and seq > ${last.seq} order by seq`,
      );
      return [...jobs, ...rest.map(toJob)];
    },

    async linkAccounts(limit) {
      const rows = await run<{ account_id: string }>(
        sql`select account_id from memory_link_jobs group by account_id order by min(seq) limit ${limit}`,
      );
      return rows.map((row) => row.account_id);
    },

    async completeLinks(accountId, seqs) {
      for (let start = 0; start < seqs.length; start += idChunk) {
        const chunk = seqs.slice(start, start + idChunk);
        await run(
          sql`delete from memory_link_jobs where account_id = ${accountId} and seq in (${list(chunk)})`,
        );
      }
    },
  };
}
