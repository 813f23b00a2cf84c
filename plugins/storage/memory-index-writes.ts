/**
 * The inverted index's writes: postings and term counts as rows come and go, and the corpus
 * figures BM25 needs (rows and indexed length per account and scope) with the version every
 * change to an account's memories raises (core/memory/recall-cache.ts). Large writes go a
 * bounded statement at a time, with a turn for other requests between statements.
 */
// core/ports/memory-text.ts, not core/index.ts: the search threads load this file and need none of the rest.
import { createPacedSlices, createSlices, indexTermCounts } from "../../core/ports/memory-text.ts";
import {
  type MemoryContext,
  postingsPerSqliteWriterStatement,
  rowsPerArrayStatement,
  rowsPerSqliteStatement,
} from "./memory-context.ts";
import { list, sql } from "./sql-statement.ts";

export type IndexTerms = ReturnType<typeof indexTermCounts>;
export type ScopeChanges = ReadonlyMap<string, { rows: number; length: number }>;

// Terms per statement when a forget counts them down.
const postingChunk = 150;

export type IndexWrites = ReturnType<typeof createIndexWrites>;

export function createIndexWrites(context: MemoryContext) {
  const { run, sqlite } = context;

  /** Raises the account's version for a change to its rows or relations that posts nothing
   * (`count` raises it for the rest). */
  async function touch(accountId: string) {
    await run(sql`update memory_counts set version = version + 1 where account_id = ${accountId}`);
  }

  /** Adds `changes` to the account's rows and indexed length per scope, raising its version. */
  async function count(accountId: string, changes: ScopeChanges) {
    if (changes.size === 0) return;
    const upsert = sql`on conflict (account_id, scope) do update set total = memory_counts.total + excluded.total,
        total_length = memory_counts.total_length + excluded.total_length, version = memory_counts.version + 1`;
    // Every scope in one statement (a JSON array on SQLite, arrays on PostgreSQL).
    const rows = [...changes].map(([scope, change]) => [scope, change.rows, change.length] as const);
    if (sqlite) {
      await run(
        sql`insert into memory_counts (account_id, scope, total, total_length, version)
           select ${accountId}, value ->> 0, value ->> 1, value ->> 2, 1 from json_each(${JSON.stringify(rows)}) where true ${upsert}`,
      );
      return;
    }
    const column = (index: 0 | 1 | 2) => rows.map((row) => row[index]);
    await run(
      sql`insert into memory_counts (account_id, scope, total, total_length, version)
         select ${accountId}, scope, total, total_length, 1 from unnest(${column(0)}::varchar[], ${column(1)}::bigint[], ${column(2)}::bigint[]) as t(scope, total, total_length)
         ${upsert}`,
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
   * a statement per `rowsPerSqliteStatement` of them in a JSON array on SQLite (in a large
   * transaction, on the writer thread, `postingsPerSqliteWriterStatement` in term order), per
   * `rowsPerArrayStatement` in arrays on PostgreSQL, with a turn for other requests between
   * statements. Postings are made a statement's worth at a time: a 500-memory import of long
   * texts has a million, and making them all at once held the thread for 300–400 ms.
   */
  async function post(accountId: string, rows: Array<{ id: string; scope: string; terms: IndexTerms }>) {
    // On PostgreSQL the statements' CPU is its backend's: paced while other accounts are served.
    const slices = sqlite ? createSlices() : createPacedSlices(accountId);
    const postingsPerStatement = !sqlite
      ? rowsPerArrayStatement
      : context.large
        ? postingsPerSqliteWriterStatement
        : rowsPerSqliteStatement;
    const documents = new Map<string, number>();
    let postings: Array<[string, string, string, number, number]> = [];
    const insertPostings = async () => {
      const chunk = postings;
      postings = [];
      if (sqlite)
        await run(
          sql`insert into memory_postings (account_id, term, memory_id, scope, tf, length)
             select ${accountId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${JSON.stringify(chunk)}) order by value ->> 0`,
        );
      else {
        const column = (index: number) => chunk.map((posting) => posting[index]);
        await run(
          sql`insert into memory_postings (account_id, term, memory_id, scope, tf, length)
             select ${accountId}, term, memory_id, scope, tf, length from unnest(${column(0)}::varchar[], ${column(1)}::varchar[], ${column(2)}::varchar[], ${column(3)}::int[], ${column(4)}::int[]) as t(term, memory_id, scope, tf, length)`,
        );
      }
      await slices.pause();
    };
    for (const { id, scope, terms } of rows) {
      for (const [term, tf] of terms.counts) {
        postings.push([term, id, scope, tf, terms.length]);
        documents.set(term, (documents.get(term) ?? 0) + 1);
        if (postings.length === postingsPerStatement) await insertPostings();
      }
    }
    if (postings.length > 0) await insertPostings();

    const frequencies = [...documents];
    for (let start = 0; start < frequencies.length; start += postingsPerStatement) {
      const chunk = frequencies.slice(start, start + postingsPerStatement);
      const conflict = sql`on conflict (account_id, term) do update set df = memory_terms.df + excluded.df`;
      if (sqlite)
        await run(
          sql`insert into memory_terms (account_id, term, df) select ${accountId}, value ->> 0, value ->> 1 from json_each(${JSON.stringify(chunk)}) where true
             order by value ->> 0 ${conflict}`,
        );
      else
        await run(
          sql`insert into memory_terms (account_id, term, df) select ${accountId}, term, df from unnest(${chunk.map(([term]) => term)}::varchar[], ${chunk.map(([, df]) => df)}::int[]) as t(term, df)
             ${conflict}`,
        );
      await slices.pause();
    }
  }

  /** Removes the memory's postings; a term no memory holds any more leaves the index entirely. */
  async function unpost(accountId: string, id: string) {
    const removed = await run<{ term: string }>(
      sql`delete from memory_postings where account_id = ${accountId} and memory_id = ${id} returning term`,
    );
    for (let start = 0; start < removed.length; start += postingChunk) {
      const terms = list(removed.slice(start, start + postingChunk).map((row) => row.term));
      await run(
        sql`update memory_terms set df = df - 1 where account_id = ${accountId} and term in (${terms})`,
      );
      await run(
        sql`delete from memory_terms where account_id = ${accountId} and term in (${terms}) and df <= 0`,
      );
    }
  }

  /**
   * Indexes rows stored before the index existed, or before it was emptied (their counts are in
   * memory_counts already, so only their indexed lengths are added): one statement per table
   * for the batch, as a write posts it.
   */
  async function backfill(accountId: string, rows: Array<{ id: string; scope: string; content: string }>) {
    const analysed = rows.map((row) => ({ ...row, terms: indexTermCounts(row.content) }));
    await post(accountId, analysed);
    if (sqlite) {
      const lengths = JSON.stringify(analysed.map((row) => [row.id, row.terms.length]));
      await run(
        sql`update memories set index_length = l.value ->> 1 from json_each(${lengths}) as l where memories.id = l.value ->> 0`,
      );
    } else {
      await run(
        sql`update memories set index_length = l.length from unnest(${analysed.map((row) => row.id)}::varchar[], ${analysed.map((row) => row.terms.length)}::int[]) as l(id, length)
           where memories.id = l.id`,
      );
    }
    await count(accountId, scopeTotals(analysed, 0));
  }

  return { touch, count, scopeTotals, post, unpost, backfill };
}
