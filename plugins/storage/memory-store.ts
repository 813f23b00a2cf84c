/**
 * The memory store over SQL, one implementation for both dialects, composed from its parts: the
 * rows (memory-records.ts), the inverted index's writes and reads (memory-index-writes.ts,
 * memory-postings.ts), relations and the link queue (memory-relations.ts, memory-link-jobs.ts),
 * vectors (memory-embeddings.ts), access counts and tombstones. The few dialect differences
 * (how a timestamp and JSON are stored, how ids are sorted) are switches in those parts;
 * everything else, the inverted index included, is the same SQL.
 */
import type { MemoryStore } from "../../core/index.ts";
import { createAccessCountMethods } from "./memory-access-counts.ts";
import { lockingPerAccount } from "./memory-account-lock.ts";
import { createMemoryContext } from "./memory-context.ts";
import { createEmbeddingMethods } from "./memory-embeddings.ts";
import { createIndexWrites } from "./memory-index-writes.ts";
import { createLinkJobMethods } from "./memory-link-jobs.ts";
import { createPostingMethods } from "./memory-postings.ts";
import { createRecordMethods } from "./memory-records.ts";
import { createRelationMethods } from "./memory-relations.ts";
import { createTombstoneMethods } from "./memory-tombstones.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunSession, RunTransaction } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

export interface SqlMemoryStore extends MemoryStore {
  /** Indexes rows stored before the postings existed; returns how many. Run once at open. */
  indexUnposted(): Promise<number>;
}

export function createSqlMemoryStore(
  dialect: Dialect,
  execute: Execute,
  runTransaction: RunTransaction,
  runSession: RunSession = (work) => work(execute),
): SqlMemoryStore {
  // PostgreSQL: the embedding paths whose HNSW index exists, shared by every transaction's store.
  const indexedPaths = new Set<string>();

  /** The store on `run`; `inTransaction`: the store of a `transaction`, which already holds the account's lock. */
  function build(run: Execute, inTransaction = false, large = false) {
    const context = createMemoryContext({
      dialect,
      run,
      execute,
      runTransaction,
      runSession,
      inTransaction,
      large,
      indexedPaths,
    });
    const index = createIndexWrites(context);
    const embeddings = createEmbeddingMethods(context);
    const store: MemoryStore = {
      ...createRecordMethods(context, index, embeddings.embeddedCount),
      ...createPostingMethods(context),
      ...createRelationMethods(context, index),
      ...createLinkJobMethods(context),
      ...embeddings,
      ...createAccessCountMethods(context),
      ...createTombstoneMethods(context),
      transaction: (work, options) =>
        runTransaction((transactionExecute) => {
          const inner = build(transactionExecute, true, options?.large === true).store;
          return work(dialect === "sqlite" ? inner : lockingPerAccount(inner, transactionExecute));
        }, options),
    };
    return { store, backfill: index.backfill };
  }

  const { store } = build(execute);
  return {
    ...store,
    async indexUnposted() {
      let indexed = 0;
      for (;;) {
        const rows = await execute<{ id: string; account_id: string; scope: string; content: string }>(
          sql`select id, account_id, scope, content from memories where index_length is null order by id limit 500`,
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
