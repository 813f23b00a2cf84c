/**
 * What recall reads, held in memory per account and version (docs/memory.md#why-search-is-fast):
 * its terms' document counts and short postings lists, common terms' postings lists, the rows it
 * ranks, and the relation edges of its best rows.
 *
 * The same common words, rows and edges come back query after query. Each is kept under the
 * account's version (`TermStatistics.version`), which every change to its memories raises (a
 * write, a merge, a supersession, a relation, a forget, a re-index; access counts aside, which
 * recall reads afresh for the rows it returns): an entry is only ever served at the version it
 * was read at, so a recall answers exactly what the database holds, and an account that writes
 * between its recalls simply reads from the database as before. Entries are only kept at a
 * version the thread has already seen a recall at, so an account writing between every read
 * never fills the cache with what it cannot reuse. Bounded by bytes, the least recently used
 * leaving first; each search thread keeps its own, for the accounts whose recalls it is home to
 * (platform/memory-search-threads.ts).
 */
import { LRUCache } from "lru-cache";
import type { MemoryRecord, Posting, PostingColumns, RelationRecord } from "../ports/memory-store.ts";
import { analysisCacheBytesKept } from "./scoring.ts";

// A posting object and its id string, roughly (a short list's).
const bytesPerPosting = 200;
// A long list's posting, in columns: its id string, two array slots and two 32-bit integers.
const bytesPerColumnPosting = 80;
// A record's fixed fields, dates and strings aside; a relation edge.
const bytesPerRecord = 600;
const bytesPerEdge = 250;

// About 1.6 million postings. Stems make common terms' lists longer (a word's forms share one):
// the queries of test/bench/memory.ts at 100,000 memories keep about 400,000 postings, more than
// the 64 MiB of posting objects this held before stems, which then re-read lists every round
// (RESULTS.md); as columns they take less than half the bytes.
const lists = new LRUCache<string, PostingColumns>({
  maxSize: 128 * 1024 * 1024,
  sizeCalculation: (list, key) => Math.max(1, key.length * 2 + list.memoryIds.length * bytesPerColumnPosting),
});

/** A row's entry, or its edges': kept under the memory's id alone (ids are unique across
 * accounts), so a lookup builds no key; served only to its account at its version. */
interface Kept<Value> {
  accountId: string;
  version: number;
  value: Value;
}

const rows = new LRUCache<string, Kept<MemoryRecord>>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: ({ value: row }, id) =>
    id.length * 2 + bytesPerRecord + 2 * (row.content.length + (row.sourceContent?.length ?? 0)),
});
const edges = new LRUCache<string, Kept<readonly RelationRecord[]>>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: ({ value: touching }, id) => id.length * 2 + bytesPerEdge * Math.max(1, touching.length),
});
/** The version each account's last recall saw. */
const versionSeen = new LRUCache<string, number>({ max: 10_000 });

/** A query term's document count and, when its list is short, its postings in the recall's
 * scope (`MemoryStore.termStatistics`); a long list is kept in `lists`. */
export interface KeptTerm {
  documentFrequency: number;
  postings: readonly Posting[];
}

const terms = new LRUCache<string, KeptTerm>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (term, key) => key.length * 2 + bytesPerPosting * (1 + term.postings.length),
});

const termKey = (accountId: string, version: number, scope: string | undefined, term: string) =>
  `${accountId}\u0000${version}\u0000${scope === undefined ? "*" : `=${scope}`}\u0000${term}`;

/**
 * The terms kept for the account at the version its last recall here saw, before this recall
 * has read its version: a recall asks the database only for the others, in the same read that
 * tells the version, and uses these only if the version is still the same.
 */
export function keptTerms(accountId: string, scope: string | undefined, queryTerms: readonly string[]) {
  const version = versionSeen.get(accountId);
  const found = new Map<string, KeptTerm>();
  if (version === undefined) return { version, found };
  for (const term of queryTerms) {
    const kept = terms.get(termKey(accountId, version, scope, term));
    if (kept !== undefined) found.set(term, kept);
  }
  return { version, found };
}

/**
 * The account's cache at `version`: the getters answer what is kept; `loadable` says whether
 * what is missing is worth keeping now (the account stood still since its last recall here), and
 * the setters keep it only then. With `keep` false (another thread keeps the account's caches)
 * nothing is kept, the version seen included.
 */
export function recallCacheAt(accountId: string, version: number, keep = true) {
  const loadable = keep && versionSeen.get(accountId) === version;
  if (keep) versionSeen.set(accountId, version);
  const listKey = (term: string) => `${accountId}\u0000${version}\u0000${term}`;
  const current = <Value>(kept: Kept<Value> | undefined) =>
    kept !== undefined && kept.version === version && kept.accountId === accountId ? kept.value : undefined;
  return {
    loadable,
    list: (term: string) => lists.get(listKey(term)),
    keepList(term: string, list: PostingColumns) {
      if (loadable) lists.set(listKey(term), list);
    },
    keepTerm(scope: string | undefined, term: string, kept: KeptTerm) {
      if (loadable) terms.set(termKey(accountId, version, scope, term), kept);
    },
    row: (id: string) => current(rows.get(id)),
    keepRows(records: readonly MemoryRecord[]) {
      if (loadable) for (const record of records) rows.set(record.id, { accountId, version, value: record });
    },
    /** A row's strongest edges as a recall seed (either end; `MemoryStore.neighbours`). */
    edges: (id: string) => current(edges.get(id)),
    keepEdges(id: string, touching: readonly RelationRecord[]) {
      if (loadable) edges.set(id, { accountId, version, value: touching });
    },
  };
}

export type RecallCache = ReturnType<typeof recallCacheAt>;

/** The bytes each of this thread's caches counts now, the content analyses' (scoring.ts)
 * included, against its bound (test/bench/memory-footprint.ts, the search threads' `caches`). */
export function recallCacheBytes() {
  return {
    lists: lists.calculatedSize,
    terms: terms.calculatedSize,
    rows: rows.calculatedSize,
    edges: edges.calculatedSize,
    analyses: analysisCacheBytesKept(),
  };
}
