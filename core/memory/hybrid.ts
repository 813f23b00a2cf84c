/**
 * Hybrid ranking: fuses recall's lexical ranking with the vector ranking of the same query into
 * one list, best first. Pure and deterministic, so both databases rank alike.
 *
 * The rule:
 * 1. Each list gives ranks from 1: the lexical list by recall's score; the vector list by
 *    similarity, counting only rows above the floor (default 0.2; recall passes 0.3): the nearest
 *    rows of an unrelated query are not matches.
 * 2. Fused = (0.4 / (5 + lexical rank) + 0.6 / (5 + vector rank)) × 6, a list that does not hold
 *    the row adding nothing: reciprocal-rank fusion, scaled so a row first in both lists has 1
 *    (capped below it). Ranks, not scores: recall's scores are small and close together, a
 *    model's similarities high and spread out, and the two scales mean nothing to each other.
 *    Fitted on LoCoMo's even-numbered questions and reported on the odd ones with the default
 *    model, e5-small-v2 (test/bench/RESULTS.md): recall@10 0.711 against 0.669 for the rule
 *    before (0.85 × the lexical score relative to the list's best + 0.15 × the similarity's
 *    share above the floor), every category up. A small k (5 against the usual 60) lets each
 *    list's first few rows count far more than its tail.
 * 3. Seats, so neither list can bury the other's best answer:
 *    - tier 0: rows the caller marks as phrase matches, in the lexical list's order (recall puts
 *      an exact or near phrase match first, and fusion keeps it first);
 *    - tier 1: the lexical leader and the semantic leader (the nearest row above the floor), by
 *      fused score;
 *    - tier 2: every other row, by fused score.
 *    Ties within a tier go to the smaller id. So the lexical leader is always within the first
 *    two rows (first when it is a phrase match), whatever the vectors say, and the nearest row
 *    is within the first two after the phrase matches, even with no word in common.
 * 4. Scores follow the order: a seated row below the best row of a lower tier is raised just
 *    above it (by 0.000001 steps), never past 0.999999; every score is rounded to 6 decimal
 *    places and at least 0.000001, like recall's.
 */

import type { NearestMemory } from "../ports/memory-store.ts";

export interface LexicalHit {
  id: string;
  /** Recall's score, in [0, 1). */
  score: number;
  /** The row matches the query's phrase (exact or near): it keeps first place. */
  phrase?: boolean;
}

export interface FusedMemory {
  id: string;
  /** In [0, 1), 6 decimal places. */
  score: number;
}

export interface FusionOptions {
  /** Cosine similarity at or below which a vector neighbour is no evidence (default 0.2). */
  semanticFloor?: number;
  /** Order of rows with equal evidence (default: the smaller id). Ids differ between databases. */
  tieBreak?: (first: string, second: string) => number;
}

export const lexicalShare = 0.4;
export const semanticShare = 0.6;
/** Reciprocal-rank fusion's k: a row at rank r counts share / (k + r). */
export const rankOffset = 5;
export const defaultSemanticFloor = 0.2;
const step = 0.000001;
const highestScore = 0.999999;

interface Row {
  id: string;
  tier: number;
  /** Rank in the lexical list, for phrase matches (tier 0 keeps that order). */
  lexicalRank: number;
  fused: number;
}

function unit(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function round(value: number): number {
  return Math.min(highestScore, Math.max(step, Math.round(value * 1_000_000) / 1_000_000));
}

function compareIds(first: string, second: string): number {
  return first < second ? -1 : first > second ? 1 : 0;
}

/** Rows best first: ids stable whatever order equal scores arrived in. */
function bestFirst<T extends { id: string }>(
  rows: readonly T[],
  value: (row: T) => number,
  tieBreak: (first: string, second: string) => number = compareIds,
): T[] {
  return rows.toSorted((first, second) => value(second) - value(first) || tieBreak(first.id, second.id));
}

export function fuseRankings(
  lexical: readonly LexicalHit[],
  semantic: readonly Pick<NearestMemory, "id" | "similarity">[],
  options: FusionOptions = {},
): FusedMemory[] {
  const floor = options.semanticFloor ?? defaultSemanticFloor;
  const tieBreak = options.tieBreak ?? compareIds;
  const lexicalById = new Map<string, LexicalHit>();
  for (const hit of lexical) if (!lexicalById.has(hit.id)) lexicalById.set(hit.id, hit);
  const semanticById = new Map<string, number>();
  for (const near of semantic) {
    const evidence = unit((near.similarity - floor) / (1 - floor));
    if (evidence > (semanticById.get(near.id) ?? 0)) semanticById.set(near.id, evidence);
  }
  const lexicalOrder = bestFirst([...lexicalById.values()], (hit) => unit(hit.score), tieBreak);
  const lexicalRank = new Map(lexicalOrder.map((hit, position) => [hit.id, position + 1]));
  const semanticOrder = bestFirst(
    // Only rows above the floor were kept: their evidence is over 0.
    [...semanticById].map(([id, evidence]) => ({ id, evidence })),
    (row) => row.evidence,
    tieBreak,
  );
  const semanticRank = new Map(semanticOrder.map((row, position) => [row.id, position + 1]));
  const lexicalLeader = lexicalOrder[0]?.id;
  const semanticLeader = semanticOrder[0]?.id;
  const share = (weight: number, rank: number | undefined) =>
    rank === undefined ? 0 : (weight * (rankOffset + 1)) / (rankOffset + rank);

  const rows: Row[] = [];
  for (const id of new Set([...lexicalRank.keys(), ...semanticRank.keys()])) {
    const hit = lexicalById.get(id);
    const fused = share(lexicalShare, lexicalRank.get(id)) + share(semanticShare, semanticRank.get(id));
    const tier = hit?.phrase === true ? 0 : id === lexicalLeader || id === semanticLeader ? 1 : 2;
    rows.push({ id, tier, lexicalRank: lexicalRank.get(id) ?? 0, fused });
  }
  rows.sort(
    (first, second) =>
      first.tier - second.tier ||
      (first.tier === 0 ? first.lexicalRank - second.lexicalRank : second.fused - first.fused) ||
      tieBreak(first.id, second.id),
  );

  // From the bottom up: each row scores at least a step above the row below it in a lower tier.
  const fused: FusedMemory[] = rows.map((row) => ({ id: row.id, score: round(row.fused) }));
  for (let position = fused.length - 2; position >= 0; position--) {
    const row = fused[position] as FusedMemory;
    const below = fused[position + 1] as FusedMemory;
    const sameTier = rows[position]?.tier === rows[position + 1]?.tier && rows[position]?.tier !== 0;
    const least = sameTier ? below.score : round(below.score + step);
    if (row.score < least) row.score = least;
  }
  return fused;
}
