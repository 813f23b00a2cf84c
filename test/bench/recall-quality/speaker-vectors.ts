/**
 * Hybrid recall's speaker bonus (core/memory/hybrid-recall.ts `withQuerySignals`), measured on a
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
import { vectorBonuses } from "../../../core/memory/hybrid-recall.ts";
import {
  type DumpedQuestion,
  hybridRanking,
  printFitAndReport,
  readDumpAndDataset,
} from "./candidate-dump.ts";

const { dumped, textOf, saidAtOf } = await readDumpAndDataset("speaker-vectors.ts");

const ranked = (question: DumpedQuestion, bonus: number) =>
  hybridRanking(question, textOf, { bonuses: { ...vectorBonuses, namedSpeaker: bonus }, saidAtOf }).map(
    (row) => row.id,
  );

const naming = dumped.filter((question) => {
  const named = extractEntities(question.question);
  return question.nearest.some((near) => {
    const speaker = speakerOf(textOf.get(near.turn) ?? "");
    return speaker !== null && named.includes(speaker);
  });
}).length;
console.log(`${naming} of ${dumped.length} questions name the speaker of a vector neighbour`);
printFitAndReport(
  dumped,
  [0, 0.01, 0.02, vectorBonuses.namedSpeaker, 0.08].map(
    (bonus) =>
      [
        `${bonus.toFixed(2)}${bonus === vectorBonuses.namedSpeaker ? "*" : ""}`,
        (question) => ranked(question, bonus),
      ] as const,
  ),
  { heading: "bonus", width: 6 },
);
