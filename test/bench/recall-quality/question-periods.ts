/**
 * Would recall find more if a question naming a time ("What did Maria do in December 2023?",
 * "… on 3 June, 2023") raised the memories said in that time (core/memory/dates.ts
 * `queryPeriod`, `inQueryPeriod`)? Measured on a candidate dump (recall-quality.ts --dump) made
 * without it: each lexical hit in the period has `lexical` added to its score and each vector
 * neighbour in it `vector` added to its similarity, before fusion as hybrid recall fuses; a turn
 * is said on its session's date (its memory's document date), up to `slack` days after the period
 * counting. The lexical ranking alone is reported too, and the questions naming a time alone.
 * Chosen on the even questions, reported on the odd ones: recall's ranking adds 0.04 (its time
 * signal, core/memory/scoring.ts), and 0.2 with a slack of 7 days was best on the fit half for
 * the vectors (`queryPeriodBonus`, `periodSlackDays`). Deterministic: no model server, no
 * database.
 *
 * Usage: npx node test/bench/recall-quality/question-periods.ts candidates.json [--locomo path]
 */
import { inQueryPeriod, queryPeriod } from "../../../core/memory/dates.ts";
import { candidateDepth } from "../../../core/memory/hybrid-recall.ts";
import {
  type DumpedQuestion,
  hybridRanking,
  printFitAndReport,
  readDumpAndDataset,
  turnsOf,
} from "./candidate-dump.ts";

const { dumped, conversations } = await readDumpAndDataset("question-periods.ts");
const { textOf, saidAtOf } = turnsOf(conversations);
const now = new Date();

interface Variant {
  lexical: number;
  vector: number;
  slack: number;
  /** How deep in each list a turn in the period is still a candidate (recall's depth otherwise). */
  depth: number;
}

function raised(question: DumpedQuestion, variant: Variant): DumpedQuestion {
  const period = queryPeriod(question.question, now);
  if (period === null) return question;
  const inPeriod = (id: string) =>
    inQueryPeriod(period, saidAtOf.get(id)?.getTime() ?? Number.NaN, [], variant.slack);
  const keep = (id: string, index: number) =>
    index < candidateDepth || (index < variant.depth && inPeriod(id));
  const lexical = question.lexical
    .filter((hit, index) => keep(hit.turn, index))
    .map((hit) => ({ ...hit, score: hit.score + (inPeriod(hit.turn) ? variant.lexical : 0) }))
    .sort((first, second) => second.score - first.score);
  const nearest = question.nearest
    .filter((near, index) => keep(near.turn, index))
    .map((near) => ({ ...near, similarity: near.similarity + (inPeriod(near.turn) ? variant.vector : 0) }))
    .sort((first, second) => second.similarity - first.similarity);
  return { ...question, lexical, nearest };
}

const dated = dumped.filter((question) => queryPeriod(question.question, now) !== null);
console.log(`${dated.length} of ${dumped.length} questions name a time`);
const variants: Variant[] = [{ lexical: 0, vector: 0, slack: 0, depth: candidateDepth }];
for (const slack of [0, 7])
  for (const [lexical, vector] of [
    [0.02, 0.02],
    [0.04, 0.05],
    [0.04, 0.1],
    [0.04, 0.2],
    [0.1, 0.1],
    [0.2, 0.2],
    [0.04, 0],
    [0, 0.1],
  ])
    variants.push({ lexical, vector, slack, depth: candidateDepth });
variants.push({ lexical: 0.04, vector: 0.1, slack: 7, depth: 200 });
const label = (variant: Variant) =>
  `${variant.lexical} ${variant.vector} slack ${variant.slack} depth ${variant.depth}`;
const hybrid = variants.map(
  (variant) =>
    [
      label(variant),
      (question: DumpedQuestion) =>
        hybridRanking(raised(question, variant), textOf, { periodBonus: 0 }).map((row) => row.id),
    ] as const,
);
const lexicalAlone = variants
  .filter((variant) => variant.vector === 0 || variant.lexical > 0)
  .map(
    (variant) =>
      [
        label(variant),
        (question: DumpedQuestion) =>
          raised(question, variant)
            .lexical.slice(0, 10)
            .map((hit) => hit.turn),
      ] as const,
  );
const layout = { heading: "lexical vector", width: 34 };
console.log("hybrid");
printFitAndReport(dumped, hybrid, layout);
console.log("lexical alone");
printFitAndReport(dumped, lexicalAlone, layout);
console.log("the questions naming a time alone, hybrid");
printFitAndReport(dated, hybrid, layout);
