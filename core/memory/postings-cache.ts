/**
 * Common terms' postings held in memory, per account and index version
 * (docs/memory.md#why-search-is-fast).
 *
 * A term held by many rows costs a long index range, or one lookup per candidate, on every
 * recall that names it, and the same few common words come back query after query. Here a
 * term's whole postings list is kept under the account's index version (`TermStatistics.version`,
 * raised by every write, forget and backfill): a list is only ever served at the version it was
 * read at, so a recall answers exactly what the database holds, and an account that writes
 * between its recalls simply reads from the database as before. A list is only loaded at a
 * version the thread has already seen a recall at, so an account writing between every read
 * never pays for lists it cannot reuse. Bounded by bytes, the least recently used leaving first;
 * each search thread keeps its own.
 */
import { LRUCache } from "lru-cache";
import type { Posting } from "../ports/memory-store.ts";

/** A term's postings over every scope, and each row's posting by id. */
export interface PostingList {
  postings: readonly Posting[];
  byMemory: ReadonlyMap<string, Posting>;
}

const cacheBytes = 64 * 1024 * 1024;
// A posting object, its id string and its map entry, roughly.
const bytesPerPosting = 200;

const lists = new LRUCache<string, PostingList>({
  maxSize: cacheBytes,
  sizeCalculation: (list, key) => Math.max(1, key.length * 2 + list.postings.length * bytesPerPosting),
});
/** The index version each account's last recall saw. */
const versionSeen = new LRUCache<string, number>({ max: 10_000 });

const keyOf = (accountId: string, version: number, term: string) =>
  `${accountId}\u0000${version}\u0000${term}`;

export function postingList(postings: readonly Posting[]): PostingList {
  return { postings, byMemory: new Map(postings.map((posting) => [posting.memoryId, posting])) };
}

/**
 * The account's cache at `version`: `get` answers a kept list, `loadable` says whether a missing
 * one is worth reading whole now (the account's index stood still since its last recall here).
 */
export function postingsCacheAt(accountId: string, version: number) {
  const loadable = versionSeen.get(accountId) === version;
  versionSeen.set(accountId, version);
  return {
    loadable,
    get: (term: string) => lists.get(keyOf(accountId, version, term)),
    set: (term: string, list: PostingList) => {
      lists.set(keyOf(accountId, version, term), list);
    },
  };
}
