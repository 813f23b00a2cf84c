/**
 * The time in a question, for hybrid recall's vector side (core/memory/hybrid-recall.ts
 * `withQuerySignals`), measured on a candidate dump (recall-quality.ts --dump):
 * - a question naming a time ("What did Maria do in December 2023?", "… on 3 June, 2023";
 *   core/memory/dates.ts `queryPeriod`): each lexical hit said in it (a turn on its session's
 *   date, up to `slack` days after) has `lexical` added to its score and each vector neighbour
 *   `vector` added to its similarity; the lexical ranking alone and the questions naming a time
 *   alone are reported too. On a dump made since recall counts the period itself (08e906c), the
 *   lexical scores already hold its 0.04;
 * - a when-question ("When did …"): each vector neighbour whose first `nearestLeadLength`
 *   characters name a time (`mentionsTime`) has `timeNamed` added.
 * Chosen on the even questions, reported on the odd ones (the choices: RESULTS.md, 2026-12-03
 * fifth session). Deterministic: no model server, no database.
 *
 * Usage: npx node test/bench/recall-quality/question-periods.ts candidates.json [--locomo path]
 */
import { asksWhen, inQueryPeriod, queryPeriod } from "../../../core/memory/dates.ts";
import { candidateDepth, vectorBonuses } from "../../../core/memory/hybrid-recall.ts";
import {
  type DumpedQuestion,
  hybridRanking,
  printFitAndReport,
  readDumpAndDataset,
} from "./candidate-dump.ts";

const { dumped, textOf, saidAtOf } = await readDumpAndDataset("question-periods.ts");
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
        hybridRanking(raised(question, variant), textOf, {
          bonuses: { ...vectorBonuses, period: 0, timeNamed: 0 },
          saidAtOf,
        }).map((row) => row.id),
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
if (dated.length > 0) {
  console.log("the questions naming a time alone, hybrid");
  printFitAndReport(dated, hybrid, layout);
}

const when = dumped.filter((question) => asksWhen(question.question));
console.log(`${when.length} when-questions; the vectors' bonus for a lead naming a time`);
const timeNamed = [0, 0.05, 0.1, 0.2].map(
  (bonus) =>
    [
      `${bonus}${bonus === vectorBonuses.timeNamed ? "*" : ""}`,
      (question: DumpedQuestion) =>
        hybridRanking(question, textOf, { bonuses: { ...vectorBonuses, timeNamed: bonus }, saidAtOf }).map(
          (row) => row.id,
        ),
    ] as const,
);
printFitAndReport(dumped, timeNamed, { heading: "bonus", width: 6 });
console.log("the when-questions alone");
printFitAndReport(when, timeNamed, { heading: "bonus", width: 6 });
