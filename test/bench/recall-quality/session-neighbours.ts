/**
 * Would a lexical hit's neighbours in its session rank better at query time (issue 45 item 1)?
 * Neighbours' words in the index lifted LoCoMo's lexical recall and sank the generated set's
 * (RESULTS.md, 2026-12-03); this tries the same idea after the index, on a candidate dump
 * (recall-quality.ts --dump): each of the best `s` lexical rows lends `n` × its score to the turn
 * after it in its session and `p` × to the turn before it, the neighbour keeping the larger of
 * its own score and the loan (`max`) or their sum (`add`); then recall@10 of that lexical
 * ranking, and of it fused with the dump's vectors by core's fuseRankings. Variants are chosen on
 * the even questions and reported on the odd ones (fit, then the odd half by category, the odd
 * half, all). Only the rows the dump holds can move: a lower bound on what reading more
 * neighbours would find, and deterministic (no model server, no database).
 *
 * Usage: npx node test/bench/recall-quality/session-neighbours.ts candidates.json
 *   [--locomo path/to/locomo10.json] (the dump's dataset: the generated one of recall-quality.ts by
 *   default, `--conversations`, `--seed`).
 */
import { fuseRankings } from "../../../core/memory/hybrid.ts";
import { candidateDepth, recallSemanticFloor } from "../../../core/memory/hybrid-recall.ts";
import { type DumpedQuestion, printFitAndReport, readDumpAndDataset } from "./candidate-dump.ts";

const { dumped, conversations } = await readDumpAndDataset("session-neighbours.ts");
const nextOf = new Map<string, string>();
const previousOf = new Map<string, string>();
for (const { turns } of conversations)
  for (let index = 1; index < turns.length; index++) {
    if (turns[index].session !== turns[index - 1].session) continue;
    nextOf.set(turns[index - 1].id, turns[index].id);
    previousOf.set(turns[index].id, turns[index - 1].id);
  }

interface Variant {
  seeds: number;
  next: number;
  previous: number;
  add: boolean;
}

function lexical(question: DumpedQuestion, variant: Variant) {
  const own = new Map(question.lexical.map((hit) => [hit.turn, hit.score]));
  const score = new Map(own);
  for (const hit of question.lexical.slice(0, variant.seeds))
    for (const [neighbour, share] of [
      [nextOf.get(hit.turn), variant.next],
      [previousOf.get(hit.turn), variant.previous],
    ] as const) {
      if (neighbour === undefined || share === 0) continue;
      const base = own.get(neighbour) ?? 0;
      const lent = variant.add ? base + share * hit.score : Math.max(base, share * hit.score);
      score.set(neighbour, Math.max(score.get(neighbour) ?? 0, lent));
    }
  const phrase = new Set(question.lexical.filter((hit) => hit.phrase).map((hit) => hit.turn));
  return [...score]
    .sort((first, second) => second[1] - first[1] || (first[0] < second[0] ? -1 : 1))
    .map(([turn, value]) => ({ id: turn, score: value, phrase: phrase.has(turn) }));
}

const fused = (question: DumpedQuestion, variant: Variant) =>
  fuseRankings(
    lexical(question, variant).slice(0, candidateDepth),
    question.nearest.slice(0, candidateDepth).map((near) => ({ id: near.turn, similarity: near.similarity })),
    { semanticFloor: recallSemanticFloor },
  );

const variants: Variant[] = [{ seeds: 0, next: 0, previous: 0, add: false }];
for (const add of [false, true])
  for (const seeds of [3, 10, 20])
    for (const next of [0.5, 0.75, 0.9])
      for (const previous of [0, 0.5]) variants.push({ seeds, next, previous, add });
printFitAndReport(
  dumped,
  (["lexical", "hybrid"] as const).flatMap((name) =>
    variants.map((variant) => {
      const rank = name === "lexical" ? lexical : fused;
      const label =
        variant.seeds === 0
          ? `${name} today`
          : `${name} s${variant.seeds} n${variant.next} p${variant.previous} ${variant.add ? "add" : "max"}`;
      return [label, (question: DumpedQuestion) => rank(question, variant).map((row) => row.id)] as const;
    }),
  ),
  { width: 34 },
);
