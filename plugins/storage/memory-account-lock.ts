/** The per-account advisory lock of PostgreSQL memory transactions. */
import type { MemoryStore } from "../../core/index.ts";
import type { Execute } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";

// The advisory-lock class of memory writes (two-key form, apart from single-key job locks).
export const memoryLockClass = 0x6d656d;

/**
 * PostgreSQL runs the memory transactions of one account one at a time: the first store call
 * in a transaction takes a transaction-scoped advisory lock on the account (every store method
 * takes the account first). Without it, two writes touching the same rows in another order (an
 * ingest and an import of the same sentences, writes superseding each other) deadlock, and
 * relation detection misses a row written at the same moment. SQLite has a single writer anyway.
 */
export function lockingPerAccount(store: MemoryStore, execute: Execute): MemoryStore {
  let locked: string | undefined;
  const lock = async (accountId: string) => {
    if (locked === accountId) return;
    if (locked !== undefined) throw new Error("one memory transaction serves one account");
    locked = accountId;
    await execute(sql`select pg_advisory_xact_lock(${memoryLockClass}, hashtext(${accountId}))`);
  };
  // Not per account: these refuse to run in a transaction (and putEmbeddings locks each account itself).
  const unlocked = new Set(["transaction", "embeddingWork", "putEmbeddings", "dropOtherEmbeddingPaths"]);
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store) as [
    string,
    (...args: unknown[]) => Promise<unknown>,
  ][]) {
    wrapped[name] = unlocked.has(name)
      ? method
      : async (accountId: string, ...rest: unknown[]) => {
          await lock(accountId);
          return method(accountId, ...rest);
        };
  }
  return wrapped as unknown as MemoryStore;
}
