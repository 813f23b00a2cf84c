/**
 * The inverted index's reads, what lexical recall ranks with: terms' document frequencies, the
 * account's corpus figures and version, and postings lists. On PostgreSQL a term's postings in one
 * scope come back as one string (a row per posting cost more to send and parse), which
 * `eachPosting` reads back.
 */
import type { MemoryStore, Posting } from "../../core/index.ts";
import { idChunk, type MemoryContext } from "./memory-context.ts";
import { empty, list, type Sql, sql } from "./sql-statement.ts";

type PostingMethods = Pick<MemoryStore, "version" | "termStatistics" | "postings" | "postingLists">;

type PostingRow = {
  term: string;
  memory_id: string;
  scope: string;
  tf: number | string;
  length: number | string;
};
type PostingList = { term: string; scope: string; postings: string };

// PostgreSQL: a term's postings in one scope as one string.
const postingsText = sql`string_agg(p.memory_id || ' ' || p.tf || ' ' || p.length, ' ')`;
/** Postings where `where` holds (over `memory_postings p`), a row each. */
const rowsSql = (where: Sql) =>
  sql`select term, memory_id, scope, tf, length from memory_postings p where ${where}`;
/** PostgreSQL: postings where `where` holds as a string per term and scope. */
const listsSql = (where: Sql) =>
  sql`select term, scope, ${postingsText} as postings from memory_postings p where ${where} group by term, scope`;

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

const toPostings = (rows: PostingRow[]): Posting[] =>
  rows.map((row) => ({
    term: row.term,
    memoryId: row.memory_id,
    scope: row.scope,
    frequency: Number(row.tf),
    length: Number(row.length),
  }));

export function createPostingMethods({ run, sqlite }: MemoryContext): PostingMethods {
  return {
    async version(accountId) {
      // Each scope's row counts its own changes (`count`, `touch`); rows are never deleted.
      const [row] = await run<{ version: number | string | null }>(
        sql`select sum(version) as version from memory_counts where account_id = ${accountId}`,
      );
      return Number(row?.version ?? 0);
    },

    async termStatistics(accountId, terms, shortLists) {
      // One statement for the terms' document frequencies, the account's totals and whether it
      // has writes queued for linking (the row with a null term) and the short lists' postings
      // (the rows with a memory id, each short term's range of the postings' primary key; on
      // PostgreSQL a row per term and scope, its postings in one string): on PostgreSQL one
      // round trip, not three.
      const termList = list(terms.length > 0 ? terms : [""]);
      const inScope = shortLists.scope === undefined ? empty : sql` and p.scope = ${shortLists.scope}`;
      const shortTerms = sql`t.account_id = ${accountId} and t.term in (${termList}) and t.df < ${shortLists.rows}`;
      // PostgreSQL: each short list as one string per scope, not a row per posting, read by a
      // lateral subquery: each short term's range of the postings, whatever the statistics say.
      // As a join, an account the statistics had not seen yet (one created since the last
      // analysis, which a large table's autovacuum leaves for a tenth of it to change) was
      // estimated at one posting, and every posting of the account was read and matched with
      // the terms: 5,000 memories beside 100,000 took 150–400 ms a recall instead of 0.5 ms
      // (test/bench/RESULTS.md).
      const shortListRows = sqlite
        ? sql`select p.term, p.memory_id, p.scope, p.tf, p.length, 0, 0 from memory_terms t
             join memory_postings p on p.account_id = t.account_id and p.term = t.term where ${shortTerms}${inScope}`
        : sql`select t.term, p.postings, p.scope, 0, 0, 0, 0 from memory_terms t cross join lateral
             (select p.scope, ${postingsText} as postings from memory_postings p
              where p.account_id = t.account_id and p.term = t.term${inScope} group by p.scope) p where ${shortTerms}`;
      const rows = await run<{
        term: string | null;
        memory_id: string | null;
        scope: string | null;
        df: number | string;
        total_length: number | string;
        version: number | string;
        links_queued: number | string;
      }>(
        sql`select term, null as memory_id, null as scope, df, 0 as total_length, 0 as version, 0 as links_queued from memory_terms where account_id = ${accountId} and term in (${termList})
           union all
           select null, null, null, coalesce(sum(total), 0), coalesce(sum(total_length), 0), coalesce(sum(version), 0),
             case when exists (select 1 from memory_link_jobs where account_id = ${accountId}) then 1 else 0 end from memory_counts where account_id = ${accountId}
           union all
           ${shortListRows}`,
      );
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
      const inScope = request.scope === undefined ? empty : sql` and p.scope = ${request.scope}`;
      if (memoryIds && !sqlite) {
        // PostgreSQL: the ids as one array, hashed and joined with the terms' ranges. As an IN
        // list, the plan PostgreSQL keeps for a named statement compared each posting of a
        // common term with every listed id in turn (500 ids against a term's 11,000 postings:
        // 150–240 ms, against 4 ms).
        return toPostings(
          await run<PostingRow>(
            sql`select p.term, p.memory_id, p.scope, p.tf, p.length from unnest(${memoryIds}::varchar[]) as wanted(id)
               join memory_postings p on p.account_id = ${accountId} and p.term = any(${request.terms}::varchar[]) and p.memory_id = wanted.id${inScope}`,
          ),
        );
      }
      // The primary key's range for each term; liveness is checked on the few rows kept.
      const where = sql`p.account_id = ${accountId} and p.term in (${list(request.terms)})${inScope}`;
      if (memoryIds) {
        // SQLite, in process: an IN list of ids per statement.
        const found: Posting[] = [];
        for (let start = 0; start < memoryIds.length; start += idChunk) {
          const ids = list(memoryIds.slice(start, start + idChunk));
          found.push(
            ...toPostings(await run<PostingRow>(rowsSql(sql`${where} and p.memory_id in (${ids})`))),
          );
        }
        return found;
      }
      if (!sqlite) {
        // Whole lists (a recall keeps the long ones, up to tens of thousands of postings) as a
        // row per term and scope, the postings in one string: a row per posting cost 6.1 ms per
        // list of 2,243 on average, against 3.7 ms (test/bench/RESULTS.md).
        const lists = await run<PostingList>(listsSql(where));
        return lists.flatMap((found) => listPostings(found.term, found.scope, found.postings));
      }
      return toPostings(await run<PostingRow>(rowsSql(where)));
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
        const found = lists.get(term);
        if (found === undefined) return;
        let shared = scopes.get(scope);
        if (shared === undefined) {
          shared = scope;
          scopes.set(scope, scope);
        }
        found.memoryIds.push(memoryId);
        found.scopes.push(shared);
        found.frequencies.push(frequency);
        found.lengths.push(length);
      };
      if (terms.length > 0) {
        const where = sql`p.account_id = ${accountId} and p.term in (${list(terms)})`;
        if (sqlite) {
          for (const row of await run<PostingRow>(rowsSql(where)))
            add(row.term, row.scope, row.memory_id, Number(row.tf), Number(row.length));
        } else {
          for (const row of await run<PostingList>(listsSql(where)))
            eachPosting(row.postings, (memoryId, frequency, length) =>
              add(row.term, row.scope, memoryId, frequency, length),
            );
        }
      }
      return new Map(
        [...lists].map(([term, found]) => [
          term,
          {
            memoryIds: found.memoryIds,
            scopes: found.scopes,
            frequencies: Int32Array.from(found.frequencies),
            lengths: Int32Array.from(found.lengths),
          },
        ]),
      );
    },
  };
}
