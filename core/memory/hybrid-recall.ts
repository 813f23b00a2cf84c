/**
 * Recall with semantic search on (docs/memory.md#embeddings): the lexical pipeline and the query's
 * embedding run side by side, the account's nearest vectors join the lexical ranking through
 * `fuseRankings`, and the best `limit` rows are returned. An embedding that fails (model server
 * down, slow, refusing) never fails the recall: the lexical results come back with a warning.
 */
import type { MemorySearch } from "../ports/memory-search.ts";
import type { MemoryStore, NearestMemory } from "../ports/memory-store.ts";
import { asksWhen, inQueryPeriod, mentionsTime, queryPeriod } from "./dates.ts";
import type { MemoryEmbedder } from "./embedder.ts";
import { extractEntities, speakerOf } from "./entities.ts";
import { asksForHistory } from "./history.ts";
import { fuseRankings } from "./hybrid.ts";
import type { RecalledMemory, RecallRequest } from "./recall.ts";
import { periodSlackDays, phraseMatcher } from "./scoring.ts";

/** Rows each side brings to the fusion: the lexical ranking's and the vectors' best (100 measured
 * better than 50 in test/bench/recall-quality.ts: 0.645 against 0.622). */
export const candidateDepth = 100;
/** Recall's semantic floor (hybrid.ts): similarities at or below it count as no match. */
export const recallSemanticFloor = 0.3;
/**
 * What is added to a vector neighbour's similarity before fusion for the signals recall's own
 * ranking counts too (core/memory/scoring.ts), each chosen on the even questions of LoCoMo and
 * of the generated set and reported on the odd ones (test/bench/RESULTS.md):
 * - `namedSpeaker`: its content is a transcript line ("Maya: …") spoken by someone the query
 *   names (recall-quality/speaker-vectors.ts: hybrid recall@10 0.741 → 0.751 and 0.632 → 0.643);
 * - `period`: the query names a time ("… in July 2023", "… on 3 June, 2023", "last week") and the
 *   row was said then, up to `periodSlackDays` after (recall-quality/question-periods.ts);
 * - `timeNamed`: the query asks when ("When did …") and the row's lead names a time ("yesterday",
 *   "last Saturday", a date: dates.ts `mentionsTime`) (recall-quality/question-periods.ts).
 */
export const vectorBonuses = { namedSpeaker: 0.04, period: 0.2, timeNamed: 0.1 };

/** The vector neighbours with `bonuses` added where the query's signals hold for them. */
export function withQuerySignals(
  query: string,
  now: Date,
  nearest: readonly NearestMemory[],
  bonuses = vectorBonuses,
): NearestMemory[] {
  const named = extractEntities(query);
  const period = queryPeriod(query, now);
  const when = asksWhen(query);
  return nearest.map((row) => {
    let bonus = 0;
    if (named.length > 0) {
      const speaker = speakerOf(row.lead);
      if (speaker !== null && named.includes(speaker)) bonus += bonuses.namedSpeaker;
    }
    if (period !== null && inQueryPeriod(period, row.saidAt.getTime(), undefined, periodSlackDays))
      bonus += bonuses.period;
    if (when && mentionsTime(row.lead)) bonus += bonuses.timeNamed;
    return bonus === 0 ? row : { ...row, similarity: row.similarity + bonus };
  });
}

export interface HybridRecallSettings {
  memories: MemoryStore;
  search: MemorySearch;
  embedder: MemoryEmbedder;
  /** SVC_MEMORY_VECTOR_FALLBACK_LIMIT (SQLite's exact scan). */
  fallbackLimit: number;
  /** SVC_MEMORY_HNSW_EF_SEARCH (PostgreSQL). */
  efSearch: number;
}

export interface HybridRecall {
  recalled: RecalledMemory[];
  /** Why the results are lexical only, for clients; empty when semantic search took part. */
  warnings: string[];
}

/** `null` only when `request.unlessLinksQueued` and the account had writes queued (recall.ts). */
export async function hybridRecall(
  settings: HybridRecallSettings,
  accountId: string,
  request: RecallRequest,
  signal?: AbortSignal,
): Promise<HybridRecall | null> {
  // The lexical search runs while the query is embedded and then searched by vector: the two
  // sides overlap instead of adding up.
  const lexicalSearch = settings.search.recall(accountId, {
    ...request,
    limit: Math.max(request.limit, candidateDepth),
  });
  // Awaited below in every case; this only keeps a failure from counting as unhandled meanwhile.
  lexicalSearch.catch(() => {});
  const history = asksForHistory(request.query);
  const semantic = async (): Promise<NearestMemory[] | { warning: string }> => {
    const query = await settings.embedder.embedQuery(request.query, signal, accountId);
    if ("warning" in query) return query;
    return settings.memories.nearest(
      accountId,
      {
        path: query.path,
        vector: query.vector,
        scope: request.scope,
        limit: candidateDepth,
        includeSuperseded: history,
        fallbackLimit: settings.fallbackLimit,
        efSearch: settings.efSearch,
      },
      request.now,
    );
  };
  const nearest = await semantic();
  const lexical = await lexicalSearch;
  if (lexical === null) return null;
  if ("warning" in nearest) return { recalled: lexical.slice(0, request.limit), warnings: [nearest.warning] };
  const records = new Map(lexical.map(({ record }) => [record.id, record]));
  // Ties go to the newer row, as in recall, so both databases (whose ids differ) rank alike. The
  // vector search brings its rows' times: only the rows that make the cut are read.
  const updated = new Map(nearest.map((row) => [row.id, row.updatedAt.getTime()]));
  const time = (id: string) => records.get(id)?.updatedAt.getTime() ?? updated.get(id) ?? 0;
  const phraseIn = phraseMatcher(request.query);
  const fused = fuseRankings(
    lexical.map(({ record, score }, position) => ({
      id: record.id,
      score,
      // A question about the past: recall's leader is the old row it asked for, and keeps first place.
      phrase: phraseIn(record.content) !== null || (history && position === 0),
    })),
    withQuerySignals(request.query, request.now, nearest),
    {
      semanticFloor: recallSemanticFloor,
      tieBreak: (first, second) =>
        time(second) - time(first) || (first < second ? -1 : first > second ? 1 : 0),
    },
  ).slice(0, request.limit);
  const missing = fused.map(({ id }) => id).filter((id) => !records.has(id));
  if (missing.length > 0)
    for (const record of await settings.memories.getMany(accountId, missing, request.now))
      records.set(record.id, record);
  // A row that expired between the vector search and this read is left out.
  return {
    recalled: fused.flatMap(({ id, score }) => {
      const record = records.get(id);
      return record ? [{ record, score }] : [];
    }),
    warnings: [],
  };
}
