/**
 * The memory store over SQL, one implementation for both dialects. The few differences (how a
 * timestamp and JSON are stored, how ids are sorted) are the `dialect` switches below;
 * everything else, the inverted index included, is the same SQL.
 */

// Not through core/index.ts: the search threads load this file, and need none of the rest.
import { createSlices } from "../../core/event-loop-turns.ts";
import type {
  LinkCandidate,
  MemoryFilter,
  MemoryRecord,
  MemoryStore,
  MemoryWrite,
  Posting,
  RelationRecord,
} from "../../core/index.ts";
import { indexTermCounts } from "../../core/memory/index.ts";

type IndexTerms = ReturnType<typeof indexTermCounts>;

import { lockingPerAccount, memoryLockClass } from "./memory-account-lock.ts";
import { createEmbeddingMethods } from "./memory-embeddings.ts";
import { timeOrderedId } from "./memory-ids.ts";
import { createMemoryRowCodec, memoryColumns } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";

export type Execute = <Row = Record<string, unknown>>(sql: string, parameters?: unknown[]) => Promise<Row[]>;
export type RunTransaction = <T>(work: (execute: Execute) => Promise<T>) => Promise<T>;

export interface SqlMemoryStore extends MemoryStore {
  /** Indexes rows stored before the postings existed; returns how many. Run once at open. */
  indexUnposted(): Promise<number>;
}

export function createSqlMemoryStore(
  dialect: Dialect,
  execute: Execute,
  runTransaction: RunTransaction,
): SqlMemoryStore {
  const sqlite = dialect === "sqlite";
  // Time-ordered ids on SQLite, random ones on PostgreSQL (memory-ids.ts says why).
  const newId = sqlite ? () => timeOrderedId() : () => crypto.randomUUID();
  const { time, json, readTime, toRecord, toRelation } = createMemoryRowCodec(dialect);
  const columns = memoryColumns;
  const neighbourColumns = memoryColumns
    .split(", ")
    .map((column) => `m.${column}`)
    .join(", ");
  const live = "(expires_at is null or expires_at > ?)";

  const filterSql = (filter: MemoryFilter, parameters: unknown[]) => {
    let sql = "";
    if (filter.scope !== undefined) {
      sql += " and scope = ?";
      parameters.push(filter.scope);
    }
    if (!filter.includeSuperseded) sql += " and superseded_at is null";
    return sql;
  };

  const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");

  // PostgreSQL: a term's postings in one scope as one string, which `eachPosting` reads back.
  const postingsText = "string_agg(p.memory_id || ' ' || p.tf || ' ' || p.length, ' ')";
  /** Postings where `where` holds (over `memory_postings p`): a row each, or on PostgreSQL a
   * string per term and scope (`listsSql`). */
  const rowsSql = (where: string) =>
    `select term, memory_id, scope, tf, length from memory_postings p where ${where}`;
  type PostingRow = {
    term: string;
    memory_id: string;
    scope: string;
    tf: number | string;
    length: number | string;
  };
  const listsSql = (where: string) =>
    `select term, scope, ${postingsText} as postings from memory_postings p where ${where} group by term, scope`;

  /** Each posting of a term's postings string: the id, count and length of each (ids are the
   * store's UUIDs and the counts integers: a space never occurs inside one). */
  function eachPosting(text: string, visit: (memoryId: string, frequency: number, length: number) => void) {
    const parts = text.split(" ");
    for (let index = 0; index + 2 < parts.length; index += 3)
      visit(parts[index], Number(parts[index + 1]), Number(parts[index + 2]));
  }

  /** A term's postings in one scope from their string. */
  function listPostings(term: string, scope: string, text: string): Posting[] {
    const postings: Posting[] = [];
    eachPosting(text, (memoryId, frequency, length) =>
      postings.push({ term, memoryId, scope, frequency, length }),
    );
    return postings;
  }

  const accountKey = sqlite ? "+account_id" : "account_id";
  /**
   * `select <selected> from memories` for the account's rows among `ids` (and `condition`, whose
   * parameters follow), each looked up by the primary key.
   * - SQLite's planner would pick the account's updated_at index for `account_id = ? and id in
   *   (…)` (every row of the account: 5 ms at 20,000 rows); the unary plus keeps it on the key.
   * - PostgreSQL's planner scans the whole table for a few hundred ids (500 ids at 30,000 rows:
   *   12 ms), and each row against every id once the plan is kept with the ids as parameters:
   *   up to 800 ms per import batch. An id at a time from an array, through a subquery the
   *   planner cannot merge into a join (its `limit`), keeps it on the key at any size.
   */
  function byIds(selected: string, accountId: string, ids: readonly string[], condition = "") {
    const where = condition === "" ? "" : ` and ${condition}`;
    return sqlite
      ? {
          sql: `select ${selected} from memories where ${accountKey} = ? and id in (${placeholders(ids.length)})${where}`,
          parameters: [accountId, ...ids],
        }
      : {
          sql: `select found.* from unnest(?::varchar[]) as wanted(id) cross join lateral
             (select ${selected} from memories where id = wanted.id and account_id = ?${where} limit 1) as found`,
          parameters: [[...new Set(ids)], accountId],
        };
  }
  // SQLite: relation edges per INSERT (far below its parameter limit).
  const relationChunk = 100;
  // A large write (a 16 MiB import: 500 rows, 256,000 postings) goes in statements of a few
  // milliseconds each, with a turn for other requests between them: SQLite runs on the server's
  // thread, and the pg client builds each statement's arrays there (core/event-loop-turns.ts).
  const postingsPerStatement = 1_000;
  const contentPerStatement = 256 * 1024;
  // SQLite reads on the server's thread; PostgreSQL's rows arrive (and are parsed) a few at a
  // time anyway, and one statement keeps every id on the primary key (rows-by-id.test.ts).
  const rowsPerRead = sqlite ? 50 : Number.POSITIVE_INFINITY;
  // Terms per statement when a forget counts them down.
  const postingChunk = 150;
  // Ids per IN list (far below both databases' parameter limits).
  const idChunk = 500;
  // PostgreSQL: the embedding paths whose HNSW index exists, shared by every transaction's store.
  const indexedPaths = new Set<string>();

  /** `inTransaction`: the store of a `transaction`, which already holds the account's lock. */
  function build(
    run: Execute,
    inTransaction = false,
  ): MemoryStore & {
    backfill(accountId: string, rows: Array<{ id: string; scope: string; content: string }>): Promise<void>;
  } {
    /**
     * Raises the account's version (core/memory/recall-cache.ts) for a change to its rows or
     * relations that posts nothing (`count` raises it for the rest).
     */
    async function touch(accountId: string) {
      await run("update memory_counts set version = version + 1 where account_id = ?", [accountId]);
    }

    /**
     * Rows and indexed length per (account, scope): the corpus figures BM25 needs, kept as rows
     * come and go, with the version every change to the account's memories raises.
     */
    async function count(accountId: string, changes: ReadonlyMap<string, { rows: number; length: number }>) {
      if (changes.size === 0) return;
      const upsert = `on conflict (account_id, scope) do update set total = memory_counts.total + excluded.total,
        total_length = memory_counts.total_length + excluded.total_length, version = memory_counts.version + 1`;
      // Every scope in one statement (a JSON array on SQLite, arrays on PostgreSQL).
      const rows = [...changes].map(([scope, change]) => [scope, change.rows, change.length] as const);
      if (sqlite) {
        await run(
          `insert into memory_counts (account_id, scope, total, total_length, version)
           select ?, value ->> 0, value ->> 1, value ->> 2, 1 from json_each(?) where true ${upsert}`,
          [accountId, JSON.stringify(rows)],
        );
        return;
      }
      const column = (index: 0 | 1 | 2) => rows.map((row) => row[index]);
      await run(
        `insert into memory_counts (account_id, scope, total, total_length, version)
         select ?, scope, total, total_length, 1 from unnest(?::varchar[], ?::bigint[], ?::bigint[]) as t(scope, total, total_length)
         ${upsert}`,
        [accountId, column(0), column(1), column(2)],
      );
    }

    /** What posted rows add to `count` per scope: `rowsEach` row apiece (0 for rows counted
     * already) and their indexed lengths. */
    function scopeTotals(rows: Array<{ scope: string; terms: IndexTerms }>, rowsEach: 0 | 1) {
      const totals = new Map<string, { rows: number; length: number }>();
      for (const row of rows) {
        const total = totals.get(row.scope) ?? { rows: 0, length: 0 };
        totals.set(row.scope, { rows: total.rows + rowsEach, length: total.length + row.terms.length });
      }
      return totals;
    }

    /**
     * Posts new rows into the inverted index: their postings and their terms' document counts,
     * a statement per `postingsPerStatement` of them (a JSON array on SQLite, arrays on
     * PostgreSQL), with a turn for other requests between statements.
     */
    async function post(accountId: string, rows: Array<{ id: string; scope: string; terms: IndexTerms }>) {
      const postings: Array<[string, string, string, number, number]> = [];
      const documents = new Map<string, number>();
      for (const { id, scope, terms } of rows) {
        for (const [term, tf] of terms.counts) {
          postings.push([term, id, scope, tf, terms.length]);
          documents.set(term, (documents.get(term) ?? 0) + 1);
        }
      }
      const frequencies = [...documents];
      const slices = createSlices();
      for (let start = 0; start < postings.length; start += postingsPerStatement) {
        const chunk = postings.slice(start, start + postingsPerStatement);
        if (sqlite)
          await run(
            `insert into memory_postings (account_id, term, memory_id, scope, tf, length)
             select ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(?)`,
            [accountId, JSON.stringify(chunk)],
          );
        else {
          const column = (index: number) => chunk.map((posting) => posting[index]);
          await run(
            `insert into memory_postings (account_id, term, memory_id, scope, tf, length)
             select ?, term, memory_id, scope, tf, length from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::int[], ?::int[]) as t(term, memory_id, scope, tf, length)`,
            [accountId, column(0), column(1), column(2), column(3), column(4)],
          );
        }
        await slices.pause();
      }
      for (let start = 0; start < frequencies.length; start += postingsPerStatement) {
        const chunk = frequencies.slice(start, start + postingsPerStatement);
        if (sqlite)
          await run(
            `insert into memory_terms (account_id, term, df) select ?, value ->> 0, value ->> 1 from json_each(?) where true
             on conflict (account_id, term) do update set df = memory_terms.df + excluded.df`,
            [accountId, JSON.stringify(chunk)],
          );
        else
          await run(
            `insert into memory_terms (account_id, term, df) select ?, term, df from unnest(?::varchar[], ?::int[]) as t(term, df)
             on conflict (account_id, term) do update set df = memory_terms.df + excluded.df`,
            [accountId, chunk.map(([term]) => term), chunk.map(([, df]) => df)],
          );
        await slices.pause();
      }
    }

    /** Removes the memory's postings; a term no memory holds any more leaves the index entirely. */
    async function unpost(accountId: string, id: string) {
      const removed = await run<{ term: string }>(
        "delete from memory_postings where account_id = ? and memory_id = ? returning term",
        [accountId, id],
      );
      for (let start = 0; start < removed.length; start += postingChunk) {
        const terms = removed.slice(start, start + postingChunk).map((row) => row.term);
        const list = placeholders(terms.length);
        await run(`update memory_terms set df = df - 1 where account_id = ? and term in (${list})`, [
          accountId,
          ...terms,
        ]);
        await run(`delete from memory_terms where account_id = ? and term in (${list}) and df <= 0`, [
          accountId,
          ...terms,
        ]);
      }
    }

    const writeValues = (write: MemoryWrite) => [
      write.metadata === undefined ? "{}" : json(write.metadata),
      write.sourceSessionId,
      write.sourceContent,
      time(write.documentDate),
      json(write.eventDates),
      write.importance,
      time(write.expiresAt),
      time(write.updatedAt),
    ];

    const embeddings = createEmbeddingMethods({
      dialect,
      run,
      execute,
      runTransaction,
      inTransaction,
      time,
      indexedPaths,
    });

    const store: MemoryStore = {
      ...embeddings,
      async findByIdentity(accountId, scope, kind, contentHash) {
        const rows = await run(
          `select ${columns} from memories where account_id = ? and scope = ? and kind = ? and content_hash = ?`,
          [accountId, scope, kind, contentHash],
        );
        return rows[0] ? toRecord(rows[0]) : null;
      },

      async insertMany(accountId, writes) {
        if (writes.length === 0) return [];
        const rows = writes.map((write) => ({
          id: newId(),
          scope: write.scope,
          terms: write.indexTerms ?? indexTermCounts(write.content),
        }));
        const parameters = (index: number) => {
          const write = writes[index];
          return [
            rows[index].id,
            accountId,
            write.scope,
            write.kind,
            write.content,
            write.contentHash,
            ...writeValues(write),
            time(write.createdAt),
            time(write.supersededAt),
            write.supersededById ?? null,
            rows[index].terms.length,
          ];
        };
        // A statement per `contentPerStatement` of content, in order; a row whose identity exists
        // (or came earlier in the batch) is skipped here and merged by the caller.
        const inserted = new Set<string>();
        const slices = createSlices();
        for (let start = 0; start < writes.length; ) {
          let end = start + 1;
          let content = writes[start].content.length;
          while (end < writes.length && content + writes[end].content.length <= contentPerStatement)
            content += writes[end++].content.length;
          const found = await run<{ id: string }>(
            `insert into memories (id, account_id, scope, kind, content, content_hash, metadata, source_session_id, source_content, document_date, event_dates, importance, expires_at, updated_at, created_at, superseded_at, superseded_by_id, index_length, access_count)
             values ${Array.from({ length: end - start }, () => `(${placeholders(18)}, 0)`).join(", ")}
             on conflict (account_id, scope, kind, content_hash) do nothing returning id`,
            Array.from({ length: end - start }, (_, offset) => parameters(start + offset)).flat(),
          );
          for (const row of found) inserted.add(row.id);
          start = end;
          await slices.pause();
        }
        const posted = rows.filter((row) => inserted.has(row.id));
        await post(accountId, posted);
        await count(accountId, scopeTotals(posted, 1));
        const results: Array<{ id: string; inserted: boolean }> = [];
        for (const [index, row] of rows.entries()) {
          if (inserted.has(row.id)) {
            results.push({ id: row.id, inserted: true });
            continue;
          }
          const write = writes[index];
          const existing = await store.findByIdentity(accountId, write.scope, write.kind, write.contentHash);
          if (!existing) throw new Error("identity conflict without a row");
          results.push({ id: existing.id, inserted: false });
        }
        return results;
      },

      async update(accountId, id, write) {
        await run(
          `update memories set metadata = ?, source_session_id = ?, source_content = ?, document_date = ?, event_dates = ?, importance = ?, expires_at = ?, updated_at = ?, superseded_at = ?, superseded_by_id = ? where id = ? and account_id = ?`,
          [...writeValues(write), time(write.supersededAt), write.supersededById ?? null, id, accountId],
        );
        await touch(accountId);
      },

      async get(accountId, id, now) {
        const rows = await run(
          `select ${columns} from memories where id = ? and account_id = ? and ${live}`,
          [id, accountId, time(now)],
        );
        return rows[0] ? toRecord(rows[0]) : null;
      },

      async getAny(accountId, id) {
        const rows = await run(`select ${columns} from memories where id = ? and account_id = ?`, [
          id,
          accountId,
        ]);
        return rows[0] ? toRecord(rows[0]) : null;
      },

      async getAnyMany(accountId, ids) {
        // An import reads its 500 rows (16 MiB) back: a statement per `rowsPerRead`, with turns
        // between.
        const unique = [...new Set(ids)];
        const found: MemoryRecord[] = [];
        const slices = createSlices();
        for (let start = 0; start < unique.length; start += rowsPerRead) {
          const { sql, parameters } = byIds(columns, accountId, unique.slice(start, start + rowsPerRead));
          for (const row of await run(sql, parameters)) found.push(toRecord(row));
          await slices.pause();
        }
        return found;
      },

      async getMany(accountId, ids, now) {
        if (ids.length === 0) return [];
        const { sql, parameters } = byIds(columns, accountId, ids, live);
        return (await run(sql, [...parameters, time(now)])).map(toRecord);
      },

      async list(accountId, filter, now) {
        const parameters: unknown[] = [accountId, time(now)];
        const where = filterSql(filter, parameters);
        const rows = await run(
          `select ${columns} from memories where account_id = ? and ${live}${where} order by updated_at desc, id desc limit ? offset ?`,
          [...parameters, filter.limit, filter.offset],
        );
        return rows.map(toRecord);
      },

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
        const newest = (scope: string, limit: string) =>
          `select id, content, expires_at, superseded_at, superseded_by_id, updated_at from memories
           where account_id = ? and scope = ${scope} and ${live}
           and not exists (select 1 from memory_link_jobs j where j.memory_id = memories.id and j.inserted = ? and j.seq > ?)
           order by updated_at desc, id desc limit ${limit}`;
        const recent = new Map<string, LinkCandidate[]>();
        if (sqlite) {
          // In process, a statement per scope costs no round trip.
          const statement = newest("?", "?");
          for (const [scope, limit] of limits) {
            const found = await run(statement, [accountId, scope, time(now), true, linkedThrough, limit]);
            recent.set(scope, found.map(candidate));
          }
          return recent;
        }
        // Every scope in one round trip: each scope's newest rows through its own index scan.
        const found = await run(
          `select s.scope as linked_scope, r.* from unnest(?::varchar[], ?::int[]) with ordinality as s(scope, n, position)
           cross join lateral (${newest("s.scope", "s.n")}) r
           order by s.position, r.updated_at desc, r.id desc`,
          [[...limits.keys()], [...limits.values()], accountId, time(now), true, linkedThrough],
        );
        for (const scope of limits.keys()) recent.set(scope, []);
        for (const row of found) recent.get(row.linked_scope as string)?.push(candidate(row));
        return recent;
      },

      async enqueueLinks(accountId, jobs, at) {
        if (jobs.length === 0) return;
        if (sqlite) {
          await run(
            `insert into memory_link_jobs (account_id, memory_id, batch_id, inserted, enqueued_at)
             select ?, value ->> 0, value ->> 1, value ->> 2, ? from json_each(?) order by key`,
            [
              accountId,
              time(at),
              JSON.stringify(jobs.map((job) => [job.memoryId, job.batchId, job.inserted ? 1 : 0])),
            ],
          );
          return;
        }
        await run(
          `insert into memory_link_jobs (account_id, memory_id, batch_id, inserted, enqueued_at)
           select ?, memory_id, batch_id, inserted, ? from unnest(?::varchar[], ?::varchar[], ?::boolean[]) with ordinality as t(memory_id, batch_id, inserted, position) order by position`,
          [
            accountId,
            time(at),
            jobs.map((job) => job.memoryId),
            jobs.map((job) => job.batchId),
            jobs.map((job) => job.inserted),
          ],
        );
      },

      async version(accountId) {
        // Each scope's row counts its own changes (`count`, `touch`); rows are never deleted.
        const [row] = await run<{ version: number | string | null }>(
          "select sum(version) as version from memory_counts where account_id = ?",
          [accountId],
        );
        return Number(row?.version ?? 0);
      },

      async linkJobs(accountId, limit) {
        type JobRow = {
          seq: number | string;
          memory_id: string;
          batch_id: string | null;
          inserted: boolean | number;
          enqueued_at: unknown;
        };
        const toJob = (row: JobRow) => ({
          seq: Number(row.seq),
          memoryId: row.memory_id,
          batchId: row.batch_id,
          inserted: Boolean(row.inserted),
          enqueuedAt: new Date(row.enqueued_at as string | number | Date),
        });
        const jobColumns = "seq, memory_id, batch_id, inserted, enqueued_at";
        const jobs = (
          await run<JobRow>(
            `select ${jobColumns} from memory_link_jobs where account_id = ? order by seq limit ?`,
            [accountId, limit],
          )
        ).map(toJob);
        const last = jobs.at(-1);
        if (last?.batchId == null || jobs.length < limit) return jobs;
        // A batch is linked as a whole: its rows are set apart from each other.
        const rest = await run<JobRow>(
          `select ${jobColumns} from memory_link_jobs where account_id = ? and batch_id = ? and seq > ? order by seq`,
          [accountId, last.batchId, last.seq],
        );
        return [...jobs, ...rest.map(toJob)];
      },

      async linkAccounts(limit) {
        const rows = await run<{ account_id: string }>(
          "select account_id from memory_link_jobs group by account_id order by min(seq) limit ?",
          [limit],
        );
        return rows.map((row) => row.account_id);
      },

      async completeLinks(accountId, seqs) {
        for (let start = 0; start < seqs.length; start += idChunk) {
          const chunk = seqs.slice(start, start + idChunk);
          await run(
            `delete from memory_link_jobs where account_id = ? and seq in (${placeholders(chunk.length)})`,
            [accountId, ...chunk],
          );
        }
      },

      async addRelations(accountId, relations) {
        if (relations.length === 0) return;
        await touch(accountId);
        const conflict = "on conflict (source_memory_id, target_memory_id, relation_type) do nothing";
        const slices = createSlices();
        if (!sqlite) {
          // Thousands of edges per statement (arrays): an import batch links up to 50,000 at once.
          for (let start = 0; start < relations.length; start += postingsPerStatement) {
            const chunk = relations.slice(start, start + postingsPerStatement);
            await run(
              `insert into memory_relations (account_id, source_memory_id, target_memory_id, relation_type, confidence, created_at)
               select ?, source, target, type, confidence, at
               from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::float8[], ?::timestamptz[]) as e(source, target, type, confidence, at)
               ${conflict}`,
              [
                accountId,
                chunk.map((relation) => relation.sourceMemoryId),
                chunk.map((relation) => relation.targetMemoryId),
                chunk.map((relation) => relation.relationType),
                chunk.map((relation) => relation.confidence),
                chunk.map((relation) => time(relation.createdAt)),
              ],
            );
            await slices.pause();
          }
          return;
        }
        // One statement per chunk, not per edge (in process, a statement costs no round trip).
        for (let start = 0; start < relations.length; start += relationChunk) {
          const chunk = relations.slice(start, start + relationChunk);
          await run(
            `insert into memory_relations (account_id, source_memory_id, target_memory_id, relation_type, confidence, created_at)
             values ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")} ${conflict}`,
            chunk.flatMap((relation) => [
              accountId,
              relation.sourceMemoryId,
              relation.targetMemoryId,
              relation.relationType,
              relation.confidence,
              time(relation.createdAt),
            ]),
          );
          await slices.pause();
        }
      },

      async supersede(accountId, targetIds, byId, at) {
        if (targetIds.length === 0) return;
        await touch(accountId);
        await run(
          `update memories set superseded_at = ?, superseded_by_id = ? where ${accountKey} = ? and id in (${placeholders(targetIds.length)})`,
          [time(at), byId, accountId, ...targetIds],
        );
      },

      async relations(accountId, id, limit, now) {
        const rows = await run(
          `select r.source_memory_id, r.target_memory_id, r.relation_type, r.confidence, r.created_at
           from memory_relations r join memories m on m.id = r.target_memory_id
           where r.account_id = ? and r.source_memory_id = ? and (m.expires_at is null or m.expires_at > ?)
           order by r.confidence desc, r.created_at desc, r.target_memory_id limit ?`,
          [accountId, id, time(now), limit],
        );
        return rows.map(toRelation);
      },

      async neighbours(accountId, ids, perSeed, now) {
        const bySeed = new Map<string, RelationRecord[]>(ids.map((id) => [id, []]));
        if (ids.length === 0) return { bySeed, rows: [] };
        // Each seed's `perSeed` strongest edges and the rows at their far ends, all seeds in one
        // statement (a round trip less per recall on PostgreSQL). The cut ignores the far ends'
        // expiry, so it does not move with the clock: expired far ends are left out after it.
        const seedEdges = `select * from (select cast(? as text) as seed, r.source_memory_id, r.target_memory_id, r.relation_type, r.confidence,
             r.created_at as relation_created_at, case when (m.expires_at is null or m.expires_at > ?) then 1 else 0 end as far_live, ${neighbourColumns}
           from memory_relations r join memories m
             on m.id = case when r.source_memory_id = ? then r.target_memory_id else r.source_memory_id end and m.account_id = r.account_id
           where r.account_id = ? and (r.source_memory_id = ? or r.target_memory_id = ?)
           order by r.confidence desc, m.updated_at desc, m.content_hash, m.scope, m.kind limit ?) as edges`;
        const found = await run(
          ids.map(() => seedEdges).join(" union all "),
          ids.flatMap((id) => [id, time(now), id, accountId, id, id, perSeed]),
        );
        const rows = new Map<string, MemoryRecord>();
        for (const row of found) {
          if (Number(row.far_live) !== 1) continue;
          bySeed.get(row.seed as string)?.push(toRelation({ ...row, created_at: row.relation_created_at }));
          if (!bySeed.has(row.id as string) && !rows.has(row.id as string))
            rows.set(row.id as string, toRecord(row));
        }
        return { bySeed, rows: [...rows.values()] };
      },

      async accessCounts(accountId, ids) {
        if (ids.length === 0) return [];
        const { sql, parameters } = byIds("id, access_count, last_accessed_at", accountId, ids);
        const rows = await run(sql, parameters);
        return rows.map((row) => ({
          id: row.id as string,
          accessCount: Number(row.access_count),
          lastAccessedAt: readTime(row.last_accessed_at),
        }));
      },

      async delete(accountId, id) {
        // Postings first: the row's delete would cascade to them without counting terms down.
        await unpost(accountId, id);
        // Vectors explicitly, not only by the cascade (secure_delete overwrites them on SQLite).
        await run("delete from memory_embeddings where memory_id = ? and account_id = ?", [id, accountId]);
        const deleted = await run<{ id: string; scope: string; index_length: number | string | null }>(
          "delete from memories where id = ? and account_id = ? returning id, scope, index_length",
          [id, accountId],
        );
        if (deleted.length === 0) return false;
        await count(
          accountId,
          new Map([[deleted[0].scope, { rows: -1, length: -Number(deleted[0].index_length ?? 0) }]]),
        );
        await run(
          "delete from memory_relations where account_id = ? and (source_memory_id = ? or target_memory_id = ?)",
          [accountId, id, id],
        );
        // What this row had superseded is current again: forgetting a correction brings back
        // what it corrected, and no row keeps the forgotten id.
        await run(
          "update memories set superseded_at = null, superseded_by_id = null where account_id = ? and superseded_by_id = ?",
          [accountId, id],
        );
        return true;
      },

      async termStatistics(accountId, terms, shortLists) {
        // One statement for the terms' document frequencies, the account's totals and whether it
        // has writes queued for linking (the row with a null term) and the short lists' postings
        // (the rows with a memory id, each short term's range of the postings' primary key; on
        // PostgreSQL a row per term and scope, its postings in one string): on PostgreSQL one
        // round trip, not three.
        const list = placeholders(Math.max(1, terms.length));
        const termValues = terms.length > 0 ? terms : [""];
        let sql = `select term, null as memory_id, null as scope, df, 0 as total_length, 0 as version, 0 as links_queued from memory_terms where account_id = ? and term in (${list})
           union all
           select null, null, null, coalesce(sum(total), 0), coalesce(sum(total_length), 0), coalesce(sum(version), 0),
             case when exists (select 1 from memory_link_jobs where account_id = ?) then 1 else 0 end from memory_counts where account_id = ?
           union all
           select p.term, ${sqlite ? "p.memory_id" : postingsText}, p.scope, ${sqlite ? "p.tf, p.length" : "0, 0"}, 0, 0 from memory_terms t
             join memory_postings p on p.account_id = t.account_id and p.term = t.term
           where t.account_id = ? and t.term in (${list}) and t.df < ?`;
        const parameters: unknown[] = [
          accountId,
          ...termValues,
          accountId,
          accountId,
          accountId,
          ...termValues,
          shortLists.rows,
        ];
        if (shortLists.scope !== undefined) {
          sql += " and p.scope = ?";
          parameters.push(shortLists.scope);
        }
        // PostgreSQL: each short list as one string per scope, not a row per posting.
        if (!sqlite) sql += " group by p.term, p.scope";
        const rows = await run<{
          term: string | null;
          memory_id: string | null;
          scope: string | null;
          df: number | string;
          total_length: number | string;
          version: number | string;
          links_queued: number | string;
        }>(sql, parameters);
        const documentFrequency = new Map<string, number>();
        const shortPostings: Posting[] = [];
        let totalDocuments = 0;
        let totalLength = 0;
        let version = 0;
        let linksQueued = false;
        for (const row of rows) {
          if (row.term === null) {
            totalDocuments = Number(row.df);
            totalLength = Number(row.total_length);
            version = Number(row.version);
            linksQueued = Number(row.links_queued) > 0;
          } else if (row.memory_id === null) documentFrequency.set(row.term, Number(row.df));
          else if (!sqlite) shortPostings.push(...listPostings(row.term, row.scope as string, row.memory_id));
          else
            shortPostings.push({
              term: row.term,
              memoryId: row.memory_id,
              scope: row.scope as string,
              frequency: Number(row.df),
              length: Number(row.total_length),
            });
        }
        const averageLength = totalDocuments > 0 ? totalLength / totalDocuments : 0;
        return { documentFrequency, totalDocuments, averageLength, version, linksQueued, shortPostings };
      },

      async postings(accountId, request) {
        if (request.terms.length === 0 || request.memoryIds?.length === 0) return [];
        // Each listed row once, on both databases.
        const memoryIds = request.memoryIds && [...new Set(request.memoryIds)];
        const toPostings = (rows: PostingRow[]): Posting[] =>
          rows.map((row) => ({
            term: row.term,
            memoryId: row.memory_id,
            scope: row.scope,
            frequency: Number(row.tf),
            length: Number(row.length),
          }));
        const inScope = request.scope === undefined ? "" : " and p.scope = ?";
        const scopeParameter = request.scope === undefined ? [] : [request.scope];
        if (memoryIds && !sqlite) {
          // PostgreSQL: the ids as one array, hashed and joined with the terms' ranges. As an IN
          // list, the plan PostgreSQL keeps for a named statement compared each posting of a
          // common term with every listed id in turn (500 ids against a term's 11,000 postings:
          // 150–240 ms, against 4 ms).
          return toPostings(
            await run<PostingRow>(
              `select p.term, p.memory_id, p.scope, p.tf, p.length from unnest(?::varchar[]) as wanted(id)
               join memory_postings p on p.account_id = ? and p.term = any(?::varchar[]) and p.memory_id = wanted.id${inScope}`,
              [memoryIds, accountId, request.terms, ...scopeParameter],
            ),
          );
        }
        // The primary key's range for each term; liveness is checked on the few rows kept.
        const where = `p.account_id = ? and p.term in (${placeholders(request.terms.length)})${inScope}`;
        const parameters: unknown[] = [accountId, ...request.terms, ...scopeParameter];
        if (memoryIds) {
          // SQLite, in process: an IN list of ids per statement.
          const found: Posting[] = [];
          for (let start = 0; start < memoryIds.length; start += idChunk) {
            const ids = memoryIds.slice(start, start + idChunk);
            found.push(
              ...toPostings(
                await run<PostingRow>(rowsSql(`${where} and p.memory_id in (${placeholders(ids.length)})`), [
                  ...parameters,
                  ...ids,
                ]),
              ),
            );
          }
          return found;
        }
        if (!sqlite) {
          // Whole lists (a recall keeps the long ones, up to tens of thousands of postings) as a
          // row per term and scope, the postings in one string: a row per posting cost 6.1 ms per
          // list of 2,243 on average, against 3.7 ms (test/bench/RESULTS.md).
          const lists = await run<{ term: string; scope: string; postings: string }>(
            listsSql(where),
            parameters,
          );
          return lists.flatMap((list) => listPostings(list.term, list.scope, list.postings));
        }
        return toPostings(await run<PostingRow>(rowsSql(where), parameters));
      },

      async postingLists(accountId, terms) {
        // Read straight into columns (not through `postings`: an object per posting made a cold
        // recall's p95 4–6 ms slower at 100,000 memories); the rows of one scope share its string.
        const lists = new Map(
          terms.map((term) => [
            term,
            {
              memoryIds: [] as string[],
              scopes: [] as string[],
              frequencies: [] as number[],
              lengths: [] as number[],
            },
          ]),
        );
        const scopes = new Map<string, string>();
        const add = (term: string, scope: string, memoryId: string, frequency: number, length: number) => {
          const list = lists.get(term);
          if (list === undefined) return;
          let shared = scopes.get(scope);
          if (shared === undefined) {
            shared = scope;
            scopes.set(scope, scope);
          }
          list.memoryIds.push(memoryId);
          list.scopes.push(shared);
          list.frequencies.push(frequency);
          list.lengths.push(length);
        };
        if (terms.length > 0) {
          const where = `p.account_id = ? and p.term in (${placeholders(terms.length)})`;
          if (sqlite) {
            const rows = await run<PostingRow>(rowsSql(where), [accountId, ...terms]);
            for (const row of rows)
              add(row.term, row.scope, row.memory_id, Number(row.tf), Number(row.length));
          } else {
            const rows = await run<{ term: string; scope: string; postings: string }>(listsSql(where), [
              accountId,
              ...terms,
            ]);
            for (const row of rows)
              eachPosting(row.postings, (memoryId, frequency, length) =>
                add(row.term, row.scope, memoryId, frequency, length),
              );
          }
        }
        return new Map(
          [...lists].map(([term, list]) => [
            term,
            {
              memoryIds: list.memoryIds,
              scopes: list.scopes,
              frequencies: Int32Array.from(list.frequencies),
              lengths: Int32Array.from(list.lengths),
            },
          ]),
        );
      },

      async recordAccess(accountId, accesses) {
        if (accesses.length === 0) return;
        if (sqlite) {
          await run(
            `update memories set access_count = access_count + (a.value ->> 1), last_accessed_at = a.value ->> 2
             from json_each(?) as a where memories.id = a.value ->> 0 and +memories.account_id = ?`,
            [JSON.stringify(accesses.map((access) => [access.id, access.count, time(access.at)])), accountId],
          );
          return;
        }
        const write = async (execute: Execute) => {
          // Rows locked in id order, so neither a write nor another batch can hold one row while
          // waiting for another: no deadlock.
          await execute(
            `update memories set access_count = memories.access_count + a.count, last_accessed_at = a.at
             from unnest(?::varchar[], ?::int[], ?::timestamptz[]) as a(id, count, at)
             where memories.id = a.id and memories.id in
             (select id from memories where account_id = ? and id = any(?::varchar[]) order by id for update)`,
            [
              accesses.map((access) => access.id),
              accesses.map((access) => access.count),
              accesses.map((access) => access.at),
              accountId,
              accesses.map((access) => access.id),
            ],
          );
        };
        if (inTransaction) {
          await write(run);
          return;
        }
        // The account's lock, shared: a batch waits for a write in progress, never for another batch.
        await runTransaction(async (execute) => {
          await execute("select pg_advisory_xact_lock_shared(?, hashtext(?))", [memoryLockClass, accountId]);
          await write(execute);
        });
      },

      async metrics(accountId, scope, now, path) {
        const parameters: unknown[] = [accountId, time(now)];
        const scoped = scope === undefined ? "" : " and scope = ?";
        if (scope !== undefined) parameters.push(scope);
        const rows = await run<{ kind: string; total: number | string }>(
          `select kind, count(*) as total from memories where account_id = ? and ${live} and superseded_at is null${scoped} group by kind`,
          parameters,
        );
        const byKind = Object.fromEntries(rows.map((row) => [row.kind, Number(row.total)]));
        const total = Object.values(byKind).reduce((sum, count) => sum + count, 0);
        // Without a path (embeddings off) nothing counts as embedded.
        const embedded = path === undefined ? 0 : await embeddings.embeddedCount(accountId, scope, path, now);
        return { total, byKind, embedded };
      },

      async exportRows(accountId, scope, limit, now) {
        const parameters: unknown[] = [accountId, time(now)];
        const scoped = scope === undefined ? "" : " and scope = ?";
        if (scope !== undefined) parameters.push(scope);
        const rows = await run(
          `select ${columns} from memories where account_id = ? and ${live}${scoped} order by created_at, id limit ?`,
          [...parameters, limit],
        );
        return rows.map(toRecord);
      },

      async relationsWithin(accountId, ids) {
        if (ids.length === 0) return [];
        const found: RelationRecord[] = [];
        const wanted = new Set(ids);
        // Chunked so a 10 000-row export stays under the databases' parameter limits.
        for (let start = 0; start < ids.length; start += 500) {
          const chunk = ids.slice(start, start + 500);
          const rows = await run(
            `select source_memory_id, target_memory_id, relation_type, confidence, created_at from memory_relations
             where account_id = ? and source_memory_id in (${placeholders(chunk.length)})`,
            [accountId, ...chunk],
          );
          for (const row of rows.map(toRelation)) if (wanted.has(row.targetMemoryId)) found.push(row);
        }
        return found;
      },

      async addTombstone(accountId, digest, at) {
        await run(
          "insert into memory_tombstones (account_id, identity_digest, forgotten_at) values (?, ?, ?) on conflict (account_id, identity_digest) do nothing",
          [accountId, digest, time(at)],
        );
      },

      async clearTombstones(accountId, digests) {
        if (digests.length === 0) return;
        await run(
          `delete from memory_tombstones where account_id = ? and identity_digest in (${placeholders(digests.length)})`,
          [accountId, ...digests],
        );
      },

      async tombstoned(accountId, digests) {
        if (digests.length === 0) return new Set();
        const rows = await run<{ identity_digest: string }>(
          `select identity_digest from memory_tombstones where account_id = ? and identity_digest in (${placeholders(digests.length)})`,
          [accountId, ...digests],
        );
        return new Set(rows.map((row) => row.identity_digest));
      },

      transaction: (work) =>
        runTransaction((transactionExecute) => {
          const inner = build(transactionExecute, true);
          return work(sqlite ? inner : lockingPerAccount(inner, transactionExecute));
        }),
    };
    /**
     * Indexes rows stored before the index existed, or before it was emptied (their counts are in
     * memory_counts already, so only their indexed lengths are added): one statement per table
     * for the batch, as a write posts it.
     */
    async function backfill(accountId: string, rows: Array<{ id: string; scope: string; content: string }>) {
      const analysed = rows.map((row) => ({ ...row, terms: indexTermCounts(row.content) }));
      await post(accountId, analysed);
      if (sqlite) {
        await run(
          `update memories set index_length = l.value ->> 1 from json_each(?) as l where memories.id = l.value ->> 0`,
          [JSON.stringify(analysed.map((row) => [row.id, row.terms.length]))],
        );
      } else {
        await run(
          `update memories set index_length = l.length from unnest(?::varchar[], ?::int[]) as l(id, length)
           where memories.id = l.id`,
          [analysed.map((row) => row.id), analysed.map((row) => row.terms.length)],
        );
      }
      await count(accountId, scopeTotals(analysed, 0));
    }

    return { ...store, backfill };
  }

  const store = build(execute);
  return {
    ...store,
    async indexUnposted() {
      let indexed = 0;
      for (;;) {
        const rows = await execute<{ id: string; account_id: string; scope: string; content: string }>(
          "select id, account_id, scope, content from memories where index_length is null order by id limit 500",
        );
        if (rows.length === 0) return indexed;
        const byAccount = Map.groupBy(rows, (row) => row.account_id);
        for (const [accountId, accountRows] of byAccount) {
          await runTransaction((run) => build(run, true).backfill(accountId, accountRows));
        }
        indexed += rows.length;
      }
    },
  };
}
