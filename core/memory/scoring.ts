/**
 * The final ranking of recall (docs/memory.md#search), computed in core so SQLite and
 * PostgreSQL return the same ids, order and scores. Its input is the best rows of the exact
 * BM25 ranking (recall.ts), their 1-hop relation neighbours (with `relationBoost`), and for a
 * history question the rows they replaced.
 *
 * Score (each signal in [0, 1], weights sum below 1, so the score is in [0, 1)):
 * a phrase match dominates (its weight exceeds all other weights together), then BM25 relevance
 * normalised by the best score the query could reach, then how specific the row is (small talk
 * made of words every memory uses says little), whether it was said in the time the query names
 * (or, less, names a time when the query asks when), whether its speaker is the person the query
 * names, current-vs-historical state,
 * relation links (edges, or entities shared with the query), then recency and importance, which
 * only break near-ties. How often a row was read plays no part.
 */

import { LRUCache } from "lru-cache";
import { asksWhen, inQueryPeriod, mentionsTime, queryPeriod } from "./dates.ts";
import { extractEntities, sharedEntities, speakerLabelLength, speakerOf } from "./entities.ts";
import { asksForHistory } from "./history.ts";
import { distinctIndexTerms, isIndexTerm, maxIndexTokens, queryTokens, textTerms } from "./tokenize.ts";

export interface ScoringCandidate {
  id: string;
  content: string;
  /** 0–1. */
  importance: number;
  updatedAt: Date;
  supersededAt: Date | null;
  /** The row that replaced this one: a history query ranks a superseded row by its successor's
   * match ("What was my favorite color before green?" finds the row "green" replaced). */
  supersededById: string | null;
  accessCount: number;
  /** Dates the row is about (YYYY-MM-DD or as written); absent = none stored. */
  eventDates?: readonly string[];
  /** The date of the document the row came from, and when it was written: when it was said is
   * the first, else the second (absent = neither is known). */
  documentDate?: Date | null;
  createdAt?: Date;
  /** 0–1 link strength through a relation edge to a lexical hit (the edge confidence); absent
   * or 0 when the row is not linked. Shared entities with the query are found here. */
  relationBoost?: number;
}

export interface ScoringInput {
  query: string;
  now: Date;
  candidates: readonly ScoringCandidate[];
  /** Per row: its BM25 over the account's index, divided by the best the query could reach (0–1). */
  lexical: ReadonlyMap<string, number>;
  /** Per row: `specificity` of its content (0–1); absent = 0. */
  specificity?: ReadonlyMap<string, number>;
  /** Only this many best rows are wanted (default all): near-copies are looked for among them only. */
  limit?: number;
}

export interface ScoredMemory {
  id: string;
  /** In [0, 1), 6 decimal places. */
  score: number;
}

export type PhraseMatch = "exact" | "near" | null;

// Phrase weights exceed the sum of all other weights (0.45), so a phrase match ranks first, and
// an exact one with all the others stays below 1.
const exactPhraseWeight = 0.54;
const nearPhraseWeight = 0.46;
const lexicalWeight = 0.2;
const specificityWeight = 0.08;
// The time signal: the row was said in (or is about) the time the query names, or, less, the
// query asks when and the row names a time (`whenShare`).
const timeWeight = 0.04;
const whenShare = 0.75;
const speakerWeight = 0.02;
const stateWeight = 0.05;
const relationWeight = 0.03;
const recencyWeight = 0.02;
const importanceWeight = 0.01;
// Specificity looks at this many distinct index terms of a content (its first ones).
const specificityTermLimit = 16;
/**
 * What is said about a time often comes this many days after it ("last week I …"): a row said up
 * to a week after the period a query names counts as said in it. Chosen with the bonus on the
 * even questions of LoCoMo and the generated set (test/bench/recall-quality/question-periods.ts).
 */
export const periodSlackDays = 7;
// Recency halves every 30 days: last month's memory counts half as much as today's.
const recencyHalfLifeDays = 30;
// A row naming the query's entities is linked like a relation edge: 0.35 + 0.15 per shared
// entity, capped at 1 (the confidence rule of relation detection).
const entityLinkBase = 0.35;
const entityLinkStep = 0.15;
// Index-token sets this similar are near-duplicates; the lower one is demoted by the factor.
const nearDuplicateSimilarity = 0.9;
const nearDuplicateDemotion = 0.5;
// Only the top of the ranking is diversified: a page holds at most 50 rows, and the pairwise
// comparison must stay cheap for large candidate sets.
const diversifyWindow = 100;
// A returned row never shows a zero score.
const minimumScore = 0.000001;
const dayInMilliseconds = 86_400_000;

/**
 * Words (`textTerms`) as one string, each followed by a space and the first preceded by one: a
 * run of words is then a substring (" favorite color " in " my favorite color is blue "), since
 * no word holds a space. One string where an array of strings took three to four times the heap.
 */
const joinedWords = (words: readonly string[]) => (words.length === 0 ? "" : ` ${words.join(" ")} `);
const splitWords = (joined: string) => (joined === "" ? [] : joined.slice(1, -1).split(" "));

/** A query's words as phrase matching needs them, worked out once per query (`joinedWords`). */
interface QueryPhrase {
  words: string;
  /** Without stopwords; empty for fewer than two (one word is no phrase). */
  core: string;
}

function queryPhrase(query: string): QueryPhrase {
  const terms = textTerms(query);
  const core = terms.filter(isIndexTerm);
  return { words: joinedWords(terms), core: core.length < 2 ? "" : joinedWords(core) };
}

function matchPhrase(query: QueryPhrase, analysis: ContentAnalysis): PhraseMatch {
  if (query.words !== "" && analysis.words.includes(query.words)) return "exact";
  // Near: the query's words without stopwords appear together in the content's words without
  // stopwords ("favorite color blue" in "my favorite color is blue").
  if (query.core === "") return null;
  analysis.coreWords ??= joinedWords(splitWords(analysis.words).filter(isIndexTerm));
  return analysis.coreWords.includes(query.core) ? "near" : null;
}

/** Whether the normalised query appears in the normalised content, word for word ("exact") or
 * ignoring stopwords ("near"). */
export function phraseMatches(query: string, content: string): PhraseMatch {
  return phraseMatcher(query)(content);
}

/** `phraseMatches` for one query and many contents: the query is read once. */
export function phraseMatcher(query: string): (content: string) => PhraseMatch {
  if (queryTokens(query).length === 0) return () => null;
  const phrase = queryPhrase(query);
  return (content) => matchPhrase(phrase, analyseContent(content));
}

function clampUnit(value: number | undefined): number {
  return value === undefined || !Number.isFinite(value) ? 0 : Math.min(1, Math.max(0, value));
}

function roundScore(value: number): number {
  return Math.max(minimumScore, Math.round(value * 1_000_000) / 1_000_000);
}

interface Analysed {
  candidate: ScoringCandidate;
  analysis: ContentAnalysis;
  phrase: PhraseMatch;
  /** Entities shared with the query, as a link strength (0 = none). */
  entityLink: number;
  lexical: number;
  matched: boolean;
  score: number;
}

/** What ranking needs from a content whatever the query, so it is computed once per content. */
interface ContentAnalysis {
  /** Its words (`textTerms`), joined (`joinedWords`). */
  words: string;
  /** Filled on first use: `words` without stopwords (near phrases). */
  coreWords?: string;
  /** Filled on first use (only the top of a ranking is compared for copies): its distinct index
   * terms. */
  tokens?: Set<string>;
  speaker: string | null;
  /** Filled on first use: the distinct index terms after any speaker label, at most
   * `specificityTermLimit`. */
  specificTerms?: string[];
  /** Filled on first use: only when-questions need it. */
  mentionsTime?: boolean;
  /** Filled on first use: only queries naming an entity need it. */
  entities?: string[];
}

// The same rows come back search after search, and their analysis depends on the content
// alone: it is cached by content, bounded by bytes (counted: the key, the joined words twice over
// for the words without stopwords, at one or two bytes a character as V8 stores them, and 450
// bytes of objects and specific terms), the least recently used leaving first. Measured heap
// against counted: the bench corpus's memories 542 bytes against 694 (1,236 before its words
// were one string and its token set was made only for the top rows); 200 Han characters, whose
// every pair is a word, 3,224 against 3,242; 64 KiB of them 712 KB against 826 KB (counted per
// character alone, as first written, 262 KB). A cached analysis is only ever read (its
// lazy fields filled in once). At 32 MiB (and analyses twice the size), the rows of
// test/bench/memory.ts's 1,000 queries did not fit and each round analysed them again: 4.4 ms
// of CPU per recall, against 3.0 ms at 64 MiB.
const analysisCacheBytes = 32 * 1024 * 1024;
const beyondLatin1 = /[\u0100-\uffff]/;
const analysisCache = new LRUCache<string, ContentAnalysis>({
  maxSize: analysisCacheBytes,
  sizeCalculation: (analysis, content) =>
    450 + (beyondLatin1.test(content) ? 2 : 1) * (content.length + 2 * analysis.words.length),
});

/** The bytes the analysis cache counts now (test/bench/memory-footprint.ts). */
export const analysisCacheBytesKept = () => analysisCache.calculatedSize;

function analysisOf(content: string): ContentAnalysis {
  return { words: joinedWords(textTerms(content)), speaker: speakerOf(content) };
}

function tokensOf(analysis: ContentAnalysis): Set<string> {
  analysis.tokens ??= new Set(distinctIndexTerms(splitWords(analysis.words), maxIndexTokens));
  return analysis.tokens;
}

function analyseContent(content: string): ContentAnalysis {
  const cached = analysisCache.get(content);
  if (cached !== undefined) return cached;
  const analysis = analysisOf(content);
  analysisCache.set(content, analysis);
  return analysis;
}

/** Where a ranking finds its rows' analyses (`contentAnalyses`). */
type ContentAnalyses = (content: string) => ContentAnalysis;

/**
 * The analyses for one recall: kept in the thread's cache, or (`keep` false: a search thread
 * ranking for an account whose caches another thread keeps, platform/memory-search-threads.ts)
 * read from it but never added to it, those made here kept for this recall only.
 */
export function contentAnalyses(keep: boolean): ContentAnalyses {
  if (keep) return analyseContent;
  const made = new Map<string, ContentAnalysis>();
  return (content) => {
    let analysis = analysisCache.get(content) ?? made.get(content);
    if (analysis === undefined) {
      analysis = analysisOf(content);
      made.set(content, analysis);
    }
    return analysis;
  };
}

export interface SpecificityStatistics {
  documentFrequency: ReadonlyMap<string, number>;
  totalDocuments: number;
}

/** The terms whose document frequencies `specificity` needs for a content. */
export function specificityTerms(content: string, analyses = analyseContent): readonly string[] {
  const analysis = analyses(content);
  if (analysis.specificTerms === undefined) {
    const labelLength = speakerLabelLength(content);
    const terms = labelLength === 0 ? splitWords(analysis.words) : textTerms(content.slice(labelLength));
    analysis.specificTerms = distinctIndexTerms(terms, specificityTermLimit);
  }
  return analysis.specificTerms;
}

/** Document counts over a set of contents (the rows a search ranks): for each `specificityTerms`
 * term, how many of the contents hold it. */
export function candidateStatistics(
  contents: readonly string[],
  analyses = analyseContent,
): SpecificityStatistics {
  const documentFrequency = new Map<string, number>();
  for (const content of contents) {
    for (const term of specificityTerms(content, analyses)) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  return { documentFrequency, totalDocuments: contents.length };
}

/**
 * How specific a content is among a set of contents (`candidateStatistics`): the mean inverse
 * document frequency of its terms (after any speaker label), divided by the highest possible,
 * in [0, 1]. Near 0 for small talk whose words recur in the other rows, near 1 for a memory of
 * names and words no other row uses. A term missing from `statistics` counts as held by one
 * row. Summed in the content's term order.
 */
export function specificity(
  content: string,
  statistics: SpecificityStatistics,
  analyses = analyseContent,
): number {
  const terms = specificityTerms(content, analyses);
  const total = Math.max(1, statistics.totalDocuments);
  const highest = Math.log(1 + (total - 1 + 0.5) / 1.5);
  if (terms.length === 0 || highest <= 0) return 0;
  let sum = 0;
  for (const term of terms) {
    const frequency = Math.min(total, Math.max(1, statistics.documentFrequency.get(term) ?? 1));
    sum += Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
  }
  return clampUnit(sum / terms.length / highest);
}

/** One entry per id (a row can arrive both as a lexical hit and as a neighbour). */
function distinctCandidates(candidates: readonly ScoringCandidate[]): ScoringCandidate[] {
  const byId = new Map<string, ScoringCandidate>();
  for (const candidate of candidates) {
    const existing = byId.get(candidate.id);
    if (existing === undefined) byId.set(candidate.id, candidate);
    else if (clampUnit(candidate.relationBoost) > clampUnit(existing.relationBoost)) {
      byId.set(candidate.id, { ...existing, relationBoost: candidate.relationBoost });
    }
  }
  return [...byId.values()];
}

function entityLink(queryEntities: readonly string[], content: string, analysis: ContentAnalysis): number {
  if (queryEntities.length === 0) return 0;
  analysis.entities ??= extractEntities(content);
  const shared = sharedEntities(queryEntities, analysis.entities).length;
  return shared === 0 ? 0 : Math.min(1, entityLinkBase + entityLinkStep * shared);
}

const phraseWeight = (phrase: PhraseMatch): number =>
  phrase === "exact" ? exactPhraseWeight : phrase === "near" ? nearPhraseWeight : 0;

function compareRanked(first: Analysed, second: Analysed): number {
  if (first.score !== second.score) return second.score - first.score;
  const firstTime = first.candidate.updatedAt.getTime() || 0;
  const secondTime = second.candidate.updatedAt.getTime() || 0;
  if (firstTime !== secondTime) return secondTime - firstTime;
  // Code-unit comparison, never localeCompare: the same order in every runtime and locale.
  return first.candidate.id < second.candidate.id ? -1 : first.candidate.id > second.candidate.id ? 1 : 0;
}

/** Whether two token sets have a Jaccard similarity of at least `nearDuplicateSimilarity`;
 * stops at the first miss too many, so telling distinct rows apart stays cheap. */
function nearlyEqual(first: ReadonlySet<string>, second: ReadonlySet<string>): boolean {
  // J ≥ t ⇔ |A ∩ B| ≥ t (|A| + |B|) / (1 + t): at most |A| minus that of A's tokens may miss.
  const needed = (nearDuplicateSimilarity * (first.size + second.size)) / (1 + nearDuplicateSimilarity);
  const allowedMisses = first.size - needed;
  if (allowedMisses < 0) return false;
  let misses = 0;
  for (const token of first) {
    if (!second.has(token) && ++misses > allowedMisses) return false;
  }
  return first.size + second.size > 0;
}

/** Demote a row whose tokens nearly repeat a higher-ranked row, so copies do not crowd the top.
 * A row and the row that superseded it are never copies: their difference is the answer. */
function diversify(ranked: Analysed[], limit: number): void {
  const leaders: Analysed[] = [];
  for (const row of ranked.slice(0, diversifyWindow)) {
    // Past `limit` distinct rows, nothing further down can reach the top `limit`: a row after
    // them scores no more than they do, and a demoted copy was already looked at.
    if (leaders.length >= limit) break;
    const copies = leaders.some(
      (leader) =>
        leader.candidate.supersededById !== row.candidate.id &&
        row.candidate.supersededById !== leader.candidate.id &&
        // Sets whose sizes differ this much cannot reach the threshold: skip the comparison.
        Math.min(tokensOf(leader.analysis).size, tokensOf(row.analysis).size) >=
          nearDuplicateSimilarity * Math.max(tokensOf(leader.analysis).size, tokensOf(row.analysis).size) &&
        nearlyEqual(tokensOf(leader.analysis), tokensOf(row.analysis)),
    );
    if (copies) row.score = roundScore(row.score * nearDuplicateDemotion);
    else leaders.push(row);
  }
  ranked.sort(compareRanked);
}

/** When a row was said: its document's date, else when it was written (NaN: unknown). */
const saidAt = (candidate: ScoringCandidate) =>
  (candidate.documentDate ?? candidate.createdAt)?.getTime() ?? Number.NaN;

/** Rank candidate rows for a query: best first, ties by newer `updatedAt`, then smaller id.
 * Rows with no lexical match and no relation or entity link are left out. */
export function scoreCandidates(input: ScoringInput): ScoredMemory[] {
  return queryScorer(input.query, input.now)(input);
}

/**
 * `scoreCandidates` for one query, to be called more than once (recall ranks a first time to
 * pick the rows whose relations join): what depends only on the query and a row's content (its
 * phrase match, its entity link) is worked out once per content.
 */
export function queryScorer(
  query: string,
  now: Date,
  analyses = analyseContent,
): (input: Omit<ScoringInput, "query" | "now">) => ScoredMemory[] {
  const tokens = queryTokens(query);
  const history = asksForHistory(query);
  const phrase = queryPhrase(query);
  const queryEntities = extractEntities(query);
  const whenQuery = asksWhen(query);
  const period = queryPeriod(query, now);
  const nowTime = now.getTime();
  const matches = new Map<string, { analysis: ContentAnalysis; phrase: PhraseMatch; entityLink: number }>();
  const match = (content: string) => {
    let found = matches.get(content);
    if (found === undefined) {
      const analysis = analyses(content);
      found = {
        analysis,
        phrase: matchPhrase(phrase, analysis),
        entityLink: entityLink(queryEntities, content, analysis),
      };
      matches.set(content, found);
    }
    return found;
  };
  return (input) => {
    if (tokens.length === 0) return [];
    const visible = distinctCandidates(input.candidates).filter(
      (row) => history || row.supersededAt === null,
    );
    const rows = visible.map((candidate): Analysed => {
      const lexical = clampUnit(input.lexical.get(candidate.id));
      return { candidate, ...match(candidate.content), lexical, matched: lexical > 0, score: 0 };
    });

    const byId = new Map(rows.map((row) => [row.candidate.id, row]));
    const ranked: Analysed[] = [];
    for (const row of rows) {
      const { candidate } = row;
      let lexical = row.lexical;
      let phrase = phraseWeight(row.phrase);
      let matched = row.matched;
      const successor = candidate.supersededById === null ? undefined : byId.get(candidate.supersededById);
      if (history && candidate.supersededAt !== null && successor !== undefined) {
        lexical = Math.max(lexical, successor.lexical);
        phrase = Math.max(phrase, phraseWeight(successor.phrase));
        matched ||= successor.matched;
      }
      const relation = Math.max(clampUnit(candidate.relationBoost), row.entityLink);
      if (!matched && relation === 0) continue;
      const { analysis } = row;
      if (whenQuery) analysis.mentionsTime ??= mentionsTime(candidate.content);
      const time =
        period !== null && inQueryPeriod(period, saidAt(candidate), candidate.eventDates, periodSlackDays)
          ? 1
          : whenQuery && (analysis.mentionsTime || (candidate.eventDates?.length ?? 0) > 0)
            ? whenShare
            : 0;
      const speaker = analysis.speaker !== null && queryEntities.includes(analysis.speaker) ? 1 : 0;
      // A history query wants the replaced rows; any other query wants the current ones. The
      // bonus grows with the row's own match, so replaced small talk does not outrank an answer.
      const state = history === (candidate.supersededAt !== null) ? 1 : 0;
      const ageDays = Math.max(0, (nowTime - candidate.updatedAt.getTime()) / dayInMilliseconds);
      const recency = Number.isFinite(ageDays) ? 0.5 ** (ageDays / recencyHalfLifeDays) : 0;
      row.score = roundScore(
        phrase +
          lexicalWeight * lexical +
          specificityWeight * clampUnit(input.specificity?.get(candidate.id)) +
          timeWeight * time +
          speakerWeight * speaker +
          stateWeight * state * lexical +
          relationWeight * relation +
          recencyWeight * recency +
          importanceWeight * clampUnit(candidate.importance),
      );
      ranked.push(row);
    }
    ranked.sort(compareRanked);
    const limit = input.limit ?? ranked.length;
    diversify(ranked, limit);
    return ranked.slice(0, limit).map((row) => ({ id: row.candidate.id, score: row.score }));
  };
}
