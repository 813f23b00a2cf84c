/**
 * The recall pipeline (docs/memory.md#search), the same for every store:
 *
 * 1. Exact lexical top-k. Every row of the scope holding a query term is scored with BM25 (light
 *    length normalisation and a length prior, below) over the account's inverted index:
 *    document counts and the mean length come from the index itself, not from the rows one
 *    query happens to read. A very common term (in more than `request.commonTermRows` rows) is
 *    scored only within the rows found by the query's rarer terms; a query of common terms
 *    alone scores the rows holding its least common term. The arithmetic runs here, in one
 *    place, so both databases return identical scores.
 * 2. Down that ranking, the best `rerankDepth` rows that are live (and current, unless the
 *    question asks about the past) are read, with any tied with the last of them; they, the
 *    1-hop relation neighbours of the best `neighbourSeeds` and, for a
 *    history question, the rows they replaced, are ranked by `queryScorer` (phrase, BM25,
 *    specificity, time and speaker matches, current versus superseded, relations, then recency
 *    and importance for near-ties). Specificity counts words among those rows themselves, so it
 *    needs no lookup.
 *
 * Reading never changes ranking: access counts are recorded for display, not ranked on.
 */
import type {
  MemoryRecord,
  MemoryStore,
  Posting,
  PostingColumns,
  RelationRecord,
  TermStatistics,
} from "../ports/memory-store.ts";
import { asksForHistory } from "./history.ts";
import { keptTerms, type RecallCache, recallCacheAt } from "./recall-cache.ts";
import { candidateStatistics, contentAnalyses, queryScorer, specificity } from "./scoring.ts";
import { queryTokens } from "./tokenize.ts";

// BM25 term-frequency saturation (the usual default) and a light length normalisation: a memory
// is a sentence or two, longer because it says more rather than because it rambles, so the
// usual 0.75 would rank "Work is fine." above a memory that says what the work is.
const k1 = 1.2;
const b = 0.1;
// A length prior on top (longer memories say more: up to +20% at 20 indexed words), so among
// memories matching the same query words the one with more to say comes first.
const lengthPriorWeight = 0.2;
const lengthPriorWords = 20;
/** Rows taken from the lexical ranking into the full ranking. */
const rerankDepth = 50;
/** With rows tied at the cut, at most this many. */
const tiedDepth = 2 * rerankDepth;
/** Relation neighbours join for this many of the best rows: each seed's edges are a read of
 * their own, and recall-quality.ts scored two seeds as high as three or four (lexical recall@10
 * 0.548 against 0.546 and 0.544; hybrid 0.637 with one, two or three), for two thirds of the read. */
const neighbourSeeds = 2;
/** Edges per seed, the strongest: a memory many others link to (a name in every conversation)
 * would otherwise bring all of them into every recall that ranks it high. recall-quality.ts
 * scored the same with 4 per seed as with all (0.549). */
const edgesPerSeed = 10;
/** A term's postings are kept in memory from `commonTermRows / keptListShare` rows up (below
 * that, they come with the term statistics). */
const keptListShare = 4;
/** Rows of the lexical ranking sorted at first (the rest when a reader goes past them). */
const firstSorted = 256;

export interface RecallRequest {
  query: string;
  /** Undefined = every scope. */
  scope?: string;
  limit: number;
  now: Date;
  /** Above this many of the account's rows a term is common (SVC_MEMORY_COMMON_TERM_ROWS). */
  commonTermRows: number;
  /**
   * Set by a caller that has not linked the account's queued writes (memory-writer.ts `settle`):
   * if any are queued at the recall's first read, it ranks nothing and answers `null`, and the
   * caller links them and asks again. A read sees its own writes linked, without a read of the
   * queue of its own before every recall (a round trip on PostgreSQL).
   */
  unlessLinksQueued?: boolean;
  /**
   * Set on the search made just after linking the account's queued writes: the account's version
   * has moved, so the terms kept at the version its last recall saw are not tried first.
   */
  afterLinking?: boolean;
}

export interface RecalledMemory {
  record: MemoryRecord;
  score: number;
}

function inverseDocumentFrequency(totalDocuments: number, frequency: number): number {
  return Math.log(1 + (totalDocuments - frequency + 0.5) / (frequency + 0.5));
}

/** BM25 per row from its postings, times the row's length prior. Each row's parts are added in
 * one fixed order (by term), so the float sum does not depend on the order a database returned
 * the postings in. */
function bm25(
  postings: readonly Posting[],
  documentFrequency: ReadonlyMap<string, number>,
  totalDocuments: number,
  averageLength: number,
): { ids: string[]; scores: number[] } {
  const average = Math.max(1, averageLength);
  // Grouped by term, the terms in byte order: a handful of groups to sort, not every posting.
  const byTerm = Map.groupBy(postings, (posting) => posting.term);
  const terms = [...byTerm.keys()].sort((first, second) => (first < second ? -1 : first > second ? 1 : 0));
  const slots = new Map<string, number>();
  const ids: string[] = [];
  const scores: number[] = [];
  const lengths: number[] = [];
  for (const term of terms) {
    const frequency = documentFrequency.get(term) ?? 0;
    const weight = inverseDocumentFrequency(Math.max(totalDocuments, frequency), frequency);
    for (const posting of byTerm.get(term) as Posting[]) {
      const norm = k1 * (1 - b + (b * posting.length) / average);
      const part = (weight * posting.frequency * (k1 + 1)) / (posting.frequency + norm);
      let slot = slots.get(posting.memoryId);
      if (slot === undefined) {
        slot = ids.length;
        slots.set(posting.memoryId, slot);
        ids.push(posting.memoryId);
        scores.push(0);
        lengths.push(posting.length);
      }
      scores[slot] += part;
    }
  }
  for (let slot = 0; slot < ids.length; slot++) {
    const length = Math.min(lengths[slot], lengthPriorWords);
    scores[slot] *= 1 + (lengthPriorWeight * length) / lengthPriorWords;
  }
  return { ids, scores };
}

async function lexicalTopK(
  store: MemoryStore,
  accountId: string,
  request: RecallRequest,
  tokens: string[],
  statistics: TermStatistics & { shortPostings: Posting[] },
  cache: RecallCache,
) {
  const present = tokens.filter((token) => (statistics.documentFrequency.get(token) ?? 0) > 0);
  const frequencyOf = (token: string) => statistics.documentFrequency.get(token) ?? 0;
  const rare = present.filter((token) => frequencyOf(token) <= request.commonTermRows);
  // Rows come from the rare terms, or, if every term is common, from the least common one;
  // the other terms are looked up for those rows alone.
  const leastCommon = present.toSorted(
    (first, second) => frequencyOf(first) - frequencyOf(second) || (first < second ? -1 : 1),
  )[0];
  const drivers = rare.length > 0 ? rare : present.length > 0 ? [leastCommon] : [];
  const others = present.filter((token) => !drivers.includes(token));
  // Long postings lists (a quarter of the common-term bar and up) kept in memory at this
  // version (recall-cache.ts), loaded now if the account stood still since its last recall;
  // shorter ones are cheap to read each time, and came with the statistics. Every short term
  // is rare, so a driver.
  const short = (term: string) => frequencyOf(term) < shortListRows(request);
  const lists = new Map<string, PostingColumns>();
  const long = present.filter((term) => !short(term));
  for (const term of long) {
    const list = cache.list(term);
    if (list !== undefined) lists.set(term, list);
  }
  // The long lists not kept yet, all in one read.
  const unread = long.filter((term) => !lists.has(term));
  if (unread.length > 0 && cache.loadable) {
    for (const [term, list] of await store.postingLists(accountId, unread)) {
      cache.keepList(term, list);
      lists.set(term, list);
    }
  }
  const readDrivers = drivers.filter((term) => !lists.has(term) && !short(term));
  const postings = statistics.shortPostings;
  if (readDrivers.length > 0)
    postings.push(...(await store.postings(accountId, { scope: request.scope, terms: readDrivers })));
  // A kept list's postings: those of the recall's scope (a driver's), or of the rows in `wanted`
  // (the rows rarer terms found, for a common term), each as a posting.
  const take = (term: string, list: PostingColumns, wanted?: ReadonlySet<string>) => {
    for (let index = 0; index < list.memoryIds.length; index++) {
      const memoryId = list.memoryIds[index];
      const scope = list.scopes[index];
      const kept =
        wanted === undefined ? request.scope === undefined || scope === request.scope : wanted.has(memoryId);
      if (!kept) continue;
      postings.push({
        term,
        memoryId,
        scope,
        frequency: list.frequencies[index],
        length: list.lengths[index],
      });
    }
  };
  for (const term of drivers) {
    const list = lists.get(term);
    if (list !== undefined) take(term, list);
  }
  const found = new Set(postings.map((posting) => posting.memoryId));
  const ids = [...found];
  for (const term of others) {
    const list = lists.get(term);
    if (list !== undefined) take(term, list, found);
  }
  // The other terms' postings of those rows, in one read (PostgreSQL: one round trip).
  const probed = others.filter((term) => !lists.has(term));
  if (probed.length > 0 && ids.length > 0)
    postings.push(
      ...(await store.postings(accountId, { scope: request.scope, terms: probed, memoryIds: ids })),
    );
  return rankLexical(postings, statistics, present);
}

/** Terms in fewer rows than this have short postings lists: read with the statistics, not kept. */
const shortListRows = (request: RecallRequest) => Math.ceil(request.commonTermRows / keptListShare);

/** Best first; equal scores by the id's byte order (the same order everywhere). */
const byRank = ([firstId, first]: [string, number], [secondId, second]: [string, number]) =>
  first !== second ? second - first : firstId < secondId ? -1 : firstId > secondId ? 1 : 0;

/**
 * Rows by BM25, best first (ties by the id's byte order: the same order everywhere), each with
 * its score divided by the best score the query's terms could reach, in [0, 1]. Sorted as far as
 * it is read: `at(index)` sorts the best rows first (every row scoring at least the
 * `index`-th best), the rest only if a reader goes past them. A common term can bring ten
 * thousand rows, of which recall reads fifty.
 */
export function rankLexical(
  postings: readonly Posting[],
  statistics: Pick<TermStatistics, "documentFrequency" | "totalDocuments" | "averageLength">,
  terms: readonly string[],
) {
  const { documentFrequency, totalDocuments, averageLength } = statistics;
  const { ids, scores } = bm25(postings, documentFrequency, totalDocuments, averageLength);
  const bestPossible =
    terms.reduce((sum, term) => {
      const frequency = documentFrequency.get(term) ?? 0;
      return sum + inverseDocumentFrequency(Math.max(totalDocuments, frequency), frequency) * (k1 + 1);
    }, 0) *
    (1 + lengthPriorWeight);
  const normalised = scores.map((score) => (bestPossible > 0 ? Math.min(1, score / bestPossible) : 0));
  let sorted: Array<[string, number]> = [];
  // Rows not sorted yet, every one of them scoring below every sorted one.
  let rest = ids.map((id, slot): [string, number] => [id, normalised[slot]]);
  function sortThrough(index: number) {
    if (index < sorted.length || rest.length === 0) return;
    const wanted = Math.max(firstSorted, 2 * (index + 1)) - sorted.length;
    if (wanted >= rest.length / 4) {
      sorted = sorted.concat(rest.sort(byRank));
      rest = [];
      return;
    }
    // The `wanted`-th best score of the rest (a numeric sort of a typed array, no comparator);
    // every row at or above it is sorted now, ties included.
    const threshold = Float64Array.from(rest, ([, score]) => score).sort()[rest.length - wanted];
    sorted = sorted.concat(rest.filter(([, score]) => score >= threshold).sort(byRank));
    rest = rest.filter(([, score]) => score < threshold);
  }
  return {
    length: ids.length,
    at(index: number): [string, number] {
      sortThrough(index);
      return sorted[index];
    },
    /** Every row, best first. */
    all(): Array<[string, number]> {
      sortThrough(ids.length - 1);
      return sorted;
    },
  };
}

/**
 * Best first; `null` only when `request.unlessLinksQueued` and the account had writes queued.
 * `keep` false: what the recall reads is used but not kept in this thread's caches (another
 * search thread keeps the account's, platform/memory-search-threads.ts).
 */
export async function recallMemories(
  store: MemoryStore,
  accountId: string,
  request: RecallRequest,
  keep = true,
): Promise<RecalledMemory[] | null> {
  const tokens = queryTokens(request.query);
  if (tokens.length === 0) return [];
  const history = asksForHistory(request.query);
  const known = await statisticsOf(store, accountId, request, tokens, keep);
  if (known === null) return null;
  const { terms, cache } = known;
  // Rows served from the cache: their access counts are read afresh if they are returned.
  const kept = new Set<string>();
  const ranked = await lexicalTopK(store, accountId, request, tokens, terms, cache);
  // Down the BM25 ranking, the best rows that are live (and current, unless the question asks
  // about the past), read a page at a time: usually the first page is enough. Rows tied with the
  // last one taken come too (up to `tiedDepth` in all): ids differ between databases, so the
  // cut must not fall between equal scores.
  const byId = new Map<string, MemoryRecord>();
  const top: Array<[string, number]> = [];
  const wanted = ([, score]: [string, number]) =>
    top.length < rerankDepth || (top.length < tiedDepth && score === top[top.length - 1][1]);
  let next = 0;
  while (next < ranked.length && wanted(ranked.at(next))) {
    // A full page while rows are missing, with the rows tied with its last one (the ranking knows
    // them: one read, where most recalls made a second for the ties); past that, only the rows
    // tied with the last one taken.
    const full = top.length < rerankDepth;
    let end = full ? Math.min(ranked.length, next + rerankDepth) : next;
    const tied = (index: number) =>
      full ? ranked.at(index)[1] === ranked.at(index - 1)[1] : wanted(ranked.at(index));
    while (end < ranked.length && end - next < tiedDepth - top.length && tied(end)) end++;
    const page = Array.from({ length: end - next }, (_, offset) => ranked.at(next + offset));
    next += page.length;
    const rows = new Map(
      (
        await liveRows(
          store,
          accountId,
          cache,
          kept,
          page.map(([id]) => id),
          request.now,
        )
      ).map((row) => [row.id, row]),
    );
    for (const entry of page) {
      if (!wanted(entry)) break;
      const row = rows.get(entry[0]);
      if (!row || (!history && row.supersededAt !== null)) continue;
      byId.set(row.id, row);
      top.push(entry);
    }
  }
  const lexical = new Map(top);
  const analyses = contentAnalyses(keep);
  const scorer = queryScorer(request.query, request.now, analyses);
  const score = (
    limit: number,
    boosts: ReadonlyMap<string, number>,
    specific?: ReadonlyMap<string, number>,
  ) =>
    scorer({
      candidates: [...byId.values()].map((row) => ({ ...row, relationBoost: boosts.get(row.id) })),
      lexical,
      specificity: specific,
      limit,
    });

  // 1-hop relation neighbours of the best rows of a first ranking join with the edge's
  // confidence (the first ranking, not BM25 alone, picks them: it breaks ties by time, not id).
  // Access counts change without raising the version, so rows served from the cache get today's:
  // those kept so far are read while the neighbours are (on PostgreSQL two statements at once,
  // not one more round trip at the end; the final ranking draws on all of them).
  const seeds = score(neighbourSeeds, new Map()).map((hit) => hit.id);
  const [neighbours, counts] = await Promise.all([
    neighboursOf(store, accountId, cache, seeds, request.now),
    accessCountsOf(store, accountId, [...kept]),
  ]);
  const edges = neighbours.edges;
  const boosts = new Map<string, number>();
  for (const edge of edges) {
    for (const [from, to] of [
      [edge.sourceMemoryId, edge.targetMemoryId],
      [edge.targetMemoryId, edge.sourceMemoryId],
    ]) {
      if (seeds.includes(from) && !seeds.includes(to))
        boosts.set(to, Math.max(boosts.get(to) ?? 0, edge.confidence));
    }
  }
  const farEnds = [...boosts.keys()].filter((id) => !byId.has(id));
  const read = new Map(neighbours.rows.map((row) => [row.id, row]));
  const unread = farEnds.filter((id) => !read.has(id));
  for (const row of await liveRows(store, accountId, cache, kept, unread, request.now)) read.set(row.id, row);
  for (const id of farEnds) {
    const row = read.get(id);
    if (row !== undefined && (request.scope === undefined || row.scope === request.scope)) byId.set(id, row);
  }
  // How specific each lexical hit is, among the hits: no lookup, the rows are in hand.
  const hits = top.map(([id]) => byId.get(id) as MemoryRecord);
  const statistics = candidateStatistics(
    hits.map((row) => row.content),
    analyses,
  );
  const specific = new Map(hits.map((row) => [row.id, specificity(row.content, statistics, analyses)]));
  const scored = score(request.limit, boosts, specific);
  // Neighbours' rows that came from the cache after that read.
  const stale = scored.filter((hit) => kept.has(hit.id) && !counts.has(hit.id)).map((hit) => hit.id);
  for (const [id, count] of await accessCountsOf(store, accountId, stale)) counts.set(id, count);
  return scored.map((hit) => {
    const record = byId.get(hit.id) as MemoryRecord;
    const count = counts.get(hit.id);
    return {
      record: count
        ? { ...record, accessCount: count.accessCount, lastAccessedAt: count.lastAccessedAt }
        : record,
      score: hit.score,
    };
  });
}

/**
 * The query terms' statistics and short lists (`MemoryStore.termStatistics`) and the account's
 * cache at its version; `null` only when `request.unlessLinksQueued` and writes are queued. Terms
 * kept at the version the account's last recall saw are not asked for: the one read tells whether
 * the version still holds, and only when it moved on are they read after all (a search just after
 * linking knows it moved, and reads them at once).
 */
async function statisticsOf(
  store: MemoryStore,
  accountId: string,
  request: RecallRequest,
  tokens: string[],
  keep: boolean,
) {
  const shortLists = { rows: shortListRows(request), scope: request.scope };
  const kept = keptTerms(accountId, request.scope, tokens);
  if (request.afterLinking) kept.found.clear();
  let unread = tokens.filter((token) => !kept.found.has(token));
  let terms = await store.termStatistics(accountId, unread, shortLists);
  if (terms.version !== kept.version && kept.found.size > 0) {
    kept.found.clear();
    unread = tokens;
    terms = await store.termStatistics(accountId, unread, shortLists);
  }
  if (request.unlessLinksQueued && terms.linksQueued) return null;
  const cache = recallCacheAt(accountId, terms.version, keep);
  const readLists = Map.groupBy(terms.shortPostings, (posting) => posting.term);
  for (const term of unread) {
    cache.keepTerm(request.scope, term, {
      documentFrequency: terms.documentFrequency.get(term) ?? 0,
      postings: readLists.get(term) ?? [],
    });
  }
  for (const [term, { documentFrequency, postings }] of kept.found) {
    if (documentFrequency > 0) terms.documentFrequency.set(term, documentFrequency);
    terms.shortPostings.push(...postings);
  }
  return { terms, cache };
}

/** The access counts of `ids` by id, read only if there are any. */
async function accessCountsOf(store: MemoryStore, accountId: string, ids: string[]) {
  const read = ids.length > 0 ? await store.accessCounts(accountId, ids) : [];
  return new Map(read.map((row) => [row.id, row]));
}

/** Live rows of `ids`: kept ones from the cache (noted in `kept`), the others read and kept. */
async function liveRows(
  store: MemoryStore,
  accountId: string,
  cache: RecallCache,
  kept: Set<string>,
  ids: readonly string[],
  now: Date,
): Promise<MemoryRecord[]> {
  const found: MemoryRecord[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const row = cache.row(id);
    if (row === undefined) missing.push(id);
    else if (row.expiresAt === null || row.expiresAt > now) {
      found.push(row);
      kept.add(id);
    }
  }
  if (missing.length > 0) {
    const read = await store.getMany(accountId, missing, now);
    cache.keepRows(read);
    found.push(...read);
  }
  return found;
}

/**
 * The edges of `seeds` (each seed's `edgesPerSeed` strongest), from the cache where kept; the
 * others read with the live rows at their far ends (and kept). An edge between two seeds comes
 * once per seed.
 */
async function neighboursOf(
  store: MemoryStore,
  accountId: string,
  cache: RecallCache,
  seeds: string[],
  now: Date,
): Promise<{ edges: RelationRecord[]; rows: MemoryRecord[] }> {
  const edges: RelationRecord[] = [];
  const unread: string[] = [];
  for (const seed of seeds) {
    const touching = cache.edges(seed);
    if (touching === undefined) unread.push(seed);
    else edges.push(...touching);
  }
  if (unread.length === 0) return { edges, rows: [] };
  const read = await store.neighbours(accountId, unread, edgesPerSeed, now);
  for (const [seed, touching] of read.bySeed) {
    cache.keepEdges(seed, touching);
    edges.push(...touching);
  }
  cache.keepRows(read.rows);
  return { edges, rows: read.rows };
}
