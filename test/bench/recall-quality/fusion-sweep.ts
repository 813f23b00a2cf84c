/**
 * Compares fusion variants offline on a candidate dump (recall-quality.ts --dump file): recall@10
 * (chosen on the even half of the questions, reported per category on the odd half, and overall)
 * per category and overall for the current rule (core's fuseRankings at recall's depth)
 * and for variants of its weights, semantic floor, candidate depth and lexical normalisation,
 * plus reciprocal-rank fusion. Deterministic; no model server, no database.
 *
 * Usage: npx node test/bench/recall-quality/fusion-sweep.ts candidates.json [wide]
 * (`wide`: the normalised variants with higher lexical shares and floors, depths 50 to 200). Last,
 * the lexical weight fitted for each first word of a question ("when", "how", …).
 */
import { readFile } from "node:fs/promises";
import { fuseRankings } from "../../../core/memory/hybrid.ts";
import { candidateDepth, recallSemanticFloor } from "../../../core/memory/hybrid-recall.ts";
import type { DumpedQuestion } from "./candidate-dump.ts";

const file = process.argv[2];
if (!file) throw new Error("usage: fusion-sweep.ts candidates.json");
const dumped = JSON.parse(await readFile(file, "utf8")) as DumpedQuestion[];
const limit = 10;
// The dump's own categories, in order of first appearance (the generated set's or LoCoMo's).
const categories = [...new Set(dumped.map((question) => question.category))];

type Ranker = (question: DumpedQuestion) => string[];

interface Variant {
  lexicalShare: number;
  floor: number;
  depth: number;
  /** Lexical scores divided by the list's best, so the lexical leader has 1 like a perfect vector. */
  normalise: boolean;
  /** The lexical and semantic leaders seated in the first two places (tier 1), as core does. */
  seats: boolean;
}

/** Core's rule with its constants as parameters (tier 0 phrase matches, tier 1 leaders, fused). */
function weighted(variant: Variant): Ranker {
  return (question) => {
    const lexical = question.lexical.slice(0, variant.depth);
    const best = Math.max(1e-9, ...lexical.map((hit) => hit.score));
    const lexicalScore = new Map(
      lexical.map((hit) => [hit.turn, variant.normalise ? hit.score / best : hit.score]),
    );
    const phrase = new Set(lexical.filter((hit) => hit.phrase).map((hit) => hit.turn));
    const semantic = new Map<string, number>();
    for (const near of question.nearest.slice(0, variant.depth))
      semantic.set(near.turn, Math.max(0, (near.similarity - variant.floor) / (1 - variant.floor)));
    const semanticLeader = [...semantic].filter(([, value]) => value > 0).sort((a, b) => b[1] - a[1])[0]?.[0];
    const lexicalLeader = lexical[0]?.turn;
    const rows = [...new Set([...lexicalScore.keys(), ...semantic.keys()])].map((turn) => {
      const fused =
        variant.lexicalShare * (lexicalScore.get(turn) ?? 0) +
        (1 - variant.lexicalShare) * (semantic.get(turn) ?? 0);
      const leader = variant.seats && (turn === lexicalLeader || turn === semanticLeader);
      const tier = phrase.has(turn) ? 0 : leader ? 1 : 2;
      return { turn, fused, tier, position: lexical.findIndex((hit) => hit.turn === turn) };
    });
    rows.sort((a, b) => a.tier - b.tier || (a.tier === 0 ? a.position - b.position : b.fused - a.fused));
    return rows.filter((row) => row.fused > 0 || row.tier < 2).map((row) => row.turn);
  };
}

/**
 * Reciprocal-rank fusion: the sum of weight / (k + rank) over both lists; with `seats`, phrase
 * matches first (in the lexical order), then the two lists' leaders, then the rest.
 */
function reciprocalRank(k: number, lexicalWeight: number, depth: number, floor: number, seats = ""): Ranker {
  return (question) => {
    const score = new Map<string, number>();
    question.lexical.slice(0, depth).forEach((hit, rank) => {
      score.set(hit.turn, (score.get(hit.turn) ?? 0) + lexicalWeight / (k + rank + 1));
    });
    question.nearest
      .slice(0, depth)
      .filter((near) => near.similarity > floor)
      .forEach((near, rank) => {
        score.set(near.turn, (score.get(near.turn) ?? 0) + (1 - lexicalWeight) / (k + rank + 1));
      });
    const phrase = question.lexical.filter((hit) => hit.phrase).map((hit) => hit.turn);
    const leaders = [
      question.lexical[0]?.turn,
      question.nearest.find((near) => near.similarity > floor)?.turn,
    ];
    const tier = (turn: string) =>
      seats.includes("phrase") && phrase.includes(turn)
        ? 0
        : seats.includes("leaders") && leaders.includes(turn)
          ? 1
          : 2;
    return [...score]
      .sort(
        (a, b) =>
          tier(a[0]) - tier(b[0]) ||
          (tier(a[0]) === 0 ? phrase.indexOf(a[0]) - phrase.indexOf(b[0]) : b[1] - a[1]),
      )
      .map(([turn]) => turn);
  };
}

const current: Ranker = (question) =>
  fuseRankings(
    question.lexical
      .slice(0, candidateDepth)
      .map((hit) => ({ id: hit.turn, score: hit.score, phrase: hit.phrase })),
    question.nearest.slice(0, candidateDepth).map((near) => ({ id: near.turn, similarity: near.similarity })),
    { semanticFloor: recallSemanticFloor },
  ).map((row) => row.id);

function recallAt(ranker: Ranker, subset: DumpedQuestion[]): number {
  let sum = 0;
  for (const question of subset) {
    const top = ranker(question).slice(0, limit);
    sum += question.evidence.filter((turn) => top.includes(turn)).length / question.evidence.length;
  }
  return sum / Math.max(1, subset.length);
}

// Variants are chosen on one half of the questions (even positions) and reported on the other, so
// no figure reported is one a variant was picked for.
const fitHalf = dumped.filter((_, index) => index % 2 === 0);
const reportHalf = dumped.filter((_, index) => index % 2 === 1);

function line(label: string, ranker: Ranker): void {
  const cells = categories.map((category) =>
    recallAt(
      ranker,
      reportHalf.filter((question) => question.category === category),
    ).toFixed(3),
  );
  console.log(
    `${label.padEnd(44)} ${recallAt(ranker, fitHalf).toFixed(3)}   ${cells.join("  ")}   ${recallAt(ranker, reportHalf).toFixed(3)}   ${recallAt(ranker, dumped).toFixed(3)}`,
  );
}

console.log(
  `${"variant".padEnd(44)} fit     ${categories.map((category) => category.slice(0, 5)).join("  ")}   report  all`,
);
line("lexical only", (question) => question.lexical.map((hit) => hit.turn));
line("vectors only", (question) => question.nearest.map((near) => near.turn));
line(`current rule (core fuseRankings, depth ${candidateDepth})`, current);
const grid = process.argv[3] === "wide";
for (const depth of grid ? [50, 100, 150, 200] : [50, 100, 200])
  for (const normalise of grid ? [true] : [false, true])
    for (const lexicalShare of grid ? [0.7, 0.75, 0.8, 0.85, 0.9] : [0.35, 0.45, 0.55, 0.65, 0.75])
      for (const floor of grid ? [0.2, 0.3, 0.4, 0.5] : [0.2, 0.3, 0.4])
        for (const seats of grid ? [true] : [true, false])
          line(
            `w${lexicalShare} f${floor} d${depth}${normalise ? " norm" : ""}${seats ? "" : " noseats"}`,
            weighted({ lexicalShare, floor, depth, normalise, seats }),
          );
for (const depth of [50, 100])
  for (const lexicalWeight of [0.3, 0.4, 0.5, 0.6])
    for (const k of [5, 10, 20, 60])
      line(`rrf k${k} w${lexicalWeight} d${depth}`, reciprocalRank(k, lexicalWeight, depth, 0.2));
for (const seats of ["phrase", "phrase leaders"])
  for (const k of [5, 10])
    for (const floor of [0, 0.2, 0.3])
      line(`rrf k${k} w0.4 d100 f${floor} ${seats}`, reciprocalRank(k, 0.4, 100, floor, seats));

// The lexical weight chosen by the question's first word ("when", "what", "how", …), each word's
// weight fitted on the even half: could the form of a question say which list to trust?
const firstWord = (question: DumpedQuestion) => question.question.toLowerCase().match(/[a-z]+/)?.[0] ?? "";
const weights = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
const fitted = new Map<string, number>();
for (const word of new Set(dumped.map(firstWord))) {
  const asked = fitHalf.filter((question) => firstWord(question) === word);
  const scored = weights.map((weight) =>
    recallAt(reciprocalRank(5, weight, 100, 0.3, "phrase leaders"), asked),
  );
  fitted.set(word, weights[scored.indexOf(Math.max(...scored))] as number);
}
line("rrf k5 d100 f0.3 seats, weight by first word", (question) =>
  reciprocalRank(5, fitted.get(firstWord(question)) ?? 0.4, 100, 0.3, "phrase leaders")(question),
);
