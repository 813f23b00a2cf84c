/**
 * Would the lexical search find more if each turn's words were indexed with its neighbours' at a
 * lower weight (issue 45 item 1, lexical ≥ 0.70)? Outside the server, with the plain BM25 of
 * bm25.ts, one index per conversation: a turn's term counts plus
 * `previous` × the counts of the turn before it in its session and `next` × the turn after it (a
 * longer document, so the length norm counts them too). Recall@10 by category; the weights are
 * chosen on the even-numbered questions and reported on the odd ones, so no reported figure is
 * one they were picked for.
 *
 * Run with `npx node test/bench/recall-quality/lexical-context.ts [--locomo path]` (the generated
 * set of recall-quality.ts otherwise, `--conversations`, `--seed`). Seconds; no model, no database.
 */
import { parseArgs } from "node:util";
import { Bm25Index, termCounts } from "./bm25.ts";
import { type Conversation, generateDataset, type Question, turnText } from "./dataset.ts";
import { loadLocomo } from "./locomo.ts";

const { values } = parseArgs({
  options: {
    locomo: { type: "string" },
    conversations: { type: "string", default: "24" },
    seed: { type: "string", default: "20261124" },
  },
});
const conversations: Conversation[] =
  values.locomo === undefined
    ? generateDataset({ conversations: Number(values.conversations), seed: Number(values.seed) })
    : loadLocomo(values.locomo).conversations;

interface Weights {
  previous: number;
  next: number;
}

/** Each question's top ten turn ids under `weights`, in the order of `conversations`' questions. */
function rank(weights: Weights): Array<{ question: Question; top: string[] }> {
  const ranked: Array<{ question: Question; top: string[] }> = [];
  for (const { turns, questions } of conversations) {
    const index = new Bm25Index();
    for (const [position, turn] of turns.entries()) {
      const texts = [{ text: turnText(turn), weight: 1 }];
      const before = turns[position - 1];
      const after = turns[position + 1];
      if (weights.previous > 0 && before?.session === turn.session)
        texts.push({ text: turnText(before), weight: weights.previous });
      if (weights.next > 0 && after?.session === turn.session)
        texts.push({ text: turnText(after), weight: weights.next });
      index.addCounts(turn.id, termCounts(texts));
    }
    for (const question of questions) ranked.push({ question, top: index.search(question.question, 10) });
  }
  return ranked;
}

const recall = (rows: Array<{ question: Question; top: string[] }>) =>
  rows.reduce(
    (sum, { question, top }) =>
      sum + question.evidence.filter((turn) => top.includes(turn)).length / question.evidence.length,
    0,
  ) / Math.max(1, rows.length);

const categories = [
  ...new Set(conversations.flatMap((conversation) => conversation.questions.map((q) => q.category))),
];
console.log(
  `${"previous next".padEnd(14)} fit     ${categories.map((category) => category.slice(0, 9).padEnd(9)).join(" ")} report  all`,
);
let best: { weights: Weights; fit: number } | null = null;
for (const previous of [0, 0.25, 0.5, 0.75, 1])
  for (const next of [0, 0.25, 0.5]) {
    const rows = rank({ previous, next });
    const fit = recall(rows.filter((_, index) => index % 2 === 0));
    const report = rows.filter((_, index) => index % 2 === 1);
    const cells = categories.map((category) =>
      recall(report.filter((row) => row.question.category === category))
        .toFixed(3)
        .padEnd(9),
    );
    console.log(
      `${`${previous} ${next}`.padEnd(14)} ${fit.toFixed(3)}   ${cells.join(" ")} ${recall(report).toFixed(3)}   ${recall(rows).toFixed(3)}`,
    );
    if (best === null || fit > best.fit) best = { weights: { previous, next }, fit };
  }
console.log(`chosen on the fit half: previous ${best?.weights.previous}, next ${best?.weights.next}`);
