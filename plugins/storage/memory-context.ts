/**
 * What every part of the memory store shares: the statements it runs (a transaction's, inside
 * one), the row codec and the few statement pieces that differ by dialect. The parts (rows,
 * postings, relations, link jobs, embeddings, access counts, tombstones) each take one of these;
 * memory-store.ts composes them into the port.
 */
import type { MemoryFilter } from "../../core/index.ts";
import { createMemoryRowCodec } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunSession, RunTransaction } from "./sql-execution.ts";
import { empty, list, type Sql, sql } from "./sql-statement.ts";

export interface MemoryContext extends ReturnType<typeof createMemoryRowCodec> {
  dialect: Dialect;
  sqlite: boolean;
  /** Statements of the store: a transaction's when `inTransaction`. */
  run: Execute;
  /** Statements outside any transaction. */
  execute: Execute;
  runTransaction: RunTransaction;
  /** Statements on one connection held for them, outside any transaction (sql-execution.ts). */
  runSession: RunSession;
  /** The store of a `transaction`, which already holds the account's lock. */
  inTransaction: boolean;
  /** The store of a large transaction (`RunTransaction`'s `large`: on SQLite, the writer thread's). */
  large: boolean;
  /** PostgreSQL: the embedding paths whose HNSW index exists, shared by every transaction's store. */
  indexedPaths: Set<string>;
  /** The row is live at `now`: not expired. */
  live(now: Date): Sql;
  /** ` and scope = …` and ` and superseded_at is null` as the filter asks. */
  filtered(filter: Pick<MemoryFilter, "scope" | "includeSuperseded">): Sql;
  /** The account's rows among `ids`, each looked up by the primary key (see below). */
  byIds(selected: Sql, accountId: string, ids: readonly string[], condition?: Sql): Sql;
  /** The account column as a condition on `memories` (SQLite: kept off the account's index). */
  accountKey: Sql;
}

export interface MemoryContextSettings {
  dialect: Dialect;
  run: Execute;
  execute: Execute;
  runTransaction: RunTransaction;
  runSession: RunSession;
  inTransaction: boolean;
  large: boolean;
  indexedPaths: Set<string>;
}

// A large write (a 16 MiB import: 500 rows, 256,000 postings) goes in statements of a few
// milliseconds each, with a turn for other requests between them (core/event-loop-turns.ts).
// SQLite runs each statement on the server's thread: 1,000 postings took 15-50 ms beside other
// work, 250 about a quarter of that. The pg client only builds each statement's arrays there.
export const rowsPerArrayStatement = 1_000;
export const rowsPerSqliteStatement = 250;
// A large transaction's postings on SQLite, sorted by term within each statement: it runs on the
// writer thread, and in key order each leaf page of the index is changed once a statement, not
// once per row that holds its term (memory-index-writes.ts).
export const postingsPerSqliteWriterStatement = 5_000;
// Ids per IN list (far below both databases' parameter limits).
export const idChunk = 500;

export function createMemoryContext(settings: MemoryContextSettings): MemoryContext {
  const sqlite = settings.dialect === "sqlite";
  const codec = createMemoryRowCodec(settings.dialect);
  const accountKey = sqlite ? sql`+account_id` : sql`account_id`;
  return {
    ...settings,
    ...codec,
    sqlite,
    accountKey,
    live: (now) => sql`(expires_at is null or expires_at > ${codec.time(now)})`,
    filtered: (filter) =>
      sql`${filter.scope === undefined ? empty : sql` and scope = ${filter.scope}`}${
        filter.includeSuperseded ? empty : sql` and superseded_at is null`
      }`,
    /**
     * `select <selected> from memories` for the account's rows among `ids` (and `condition`).
     * - SQLite's planner would pick the account's updated_at index for `account_id = ? and id in
     *   (…)` (every row of the account: 5 ms at 20,000 rows); the unary plus keeps it on the key.
     * - PostgreSQL's planner scans the whole table for a few hundred ids (500 ids at 30,000 rows:
     *   12 ms), and each row against every id once the plan is kept with the ids as parameters:
     *   up to 800 ms per import batch. An id at a time from an array, through a subquery the
     *   planner cannot merge into a join (its `limit`), keeps it on the key at any size.
     */
    byIds(selected, accountId, ids, condition) {
      const where = condition === undefined ? empty : sql` and ${condition}`;
      return sqlite
        ? sql`select ${selected} from memories where ${accountKey} = ${accountId} and id in (${list(ids)})${where}`
        : sql`select found.* from unnest(${[...new Set(ids)]}::varchar[]) as wanted(id) cross join lateral
             (select ${selected} from memories where id = wanted.id and account_id = ${accountId}${where} limit 1) as found`;
    },
  };
}
