/**
 * Hybrid recall's speaker bonus (core/memory/hybrid-recall.ts `withNamedSpeakers`), measured on a
 * candidate dump (recall-quality.ts --dump): each vector neighbour spoken by someone the question
 * names ("Maya: …" for "What does Maya do for work?") has a bonus added to its similarity before
 * fusion, for bonuses from 0 (before it) to 0.08; recall@10 chosen on the even questions and
 * reported on the odd ones (fit, then the odd half by category, the odd half, all), with how many
 * questions name a speaker. Deterministic: no model server, no database.
 *
 * Usage: npx node test/bench/recall-quality/speaker-vectors.ts candidates.json
 *   [--locomo path/to/locomo10.json] (the dump's dataset: the generated one of recall-quality.ts by
 *   default, `--conversations`, `--seed`).
 */
import { extractEntities, speakerOf } from "../../../core/memory/entities.ts";
import { namedSpeakerBonus } from "../../../core/memory/hybrid-recall.ts";
import { type DumpedQuestion, hybridRanking, readDumpAndDataset } from "./candidate-dump.ts";
import { turnText } from "./dataset.ts";

const { dumped, conversations } = await readDumpAndDataset("speaker-vectors.ts");
const textOf = new Map(conversations.flatMap(({ turns }) => turns.map((turn) => [turn.id, turnText(turn)])));

const ranked = (question: DumpedQuestion, bonus: number) =>
  hybridRanking(question, textOf, bonus).map((row) => row.id);

const categories = [...new Set(dumped.map((question) => question.category))];
const fitHalf = dumped.filter((_, index) => index % 2 === 0);
const reportHalf = dumped.filter((_, index) => index % 2 === 1);
function recallAt(bonus: number, questions: DumpedQuestion[]) {
  let sum = 0;
  for (const question of questions) {
    const top = ranked(question, bonus).slice(0, 10);
    sum += question.evidence.filter((turn) => top.includes(turn)).length / question.evidence.length;
  }
  return (sum / Math.max(1, questions.length)).toFixed(3);
}

const naming = dumped.filter((question) => {
  const named = extractEntities(question.question);
  return question.nearest.some((near) => {
    const speaker = speakerOf(textOf.get(near.turn) ?? "");
    return speaker !== null && named.includes(speaker);
  });
}).length;
console.log(`${naming} of ${dumped.length} questions name the speaker of a vector neighbour`);
console.log(`bonus   fit     ${categories.map((category) => category.slice(0, 5)).join("  ")}   report  all`);
for (const bonus of [0, 0.01, 0.02, namedSpeakerBonus, 0.08]) {
  const cells = categories.map((category) =>
    recallAt(
      bonus,
      reportHalf.filter((question) => question.category === category),
    ),
  );
  console.log(
    `${bonus.toFixed(2)}${bonus === namedSpeakerBonus ? "*" : " "}   ${recallAt(bonus, fitHalf)}   ${cells.join("  ")}   ${recallAt(bonus, reportHalf)}   ${recallAt(bonus, dumped)}`,
  );
}
