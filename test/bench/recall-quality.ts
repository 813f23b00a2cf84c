/**
 * Recall quality on long multi-session conversations: recall@10 for plain Okapi BM25, Cairn's
 * lexical recall and Cairn's hybrid recall (semantic search on) over the same turns, side by
 * side, in one run.
 *
 * Usage:
 *   npx node test/bench/recall-quality.ts [--target sqlite|postgresql] [--conversations 24]
 *     [--seed 20261124] [--examples] [--hybrid true|false] [--dump candidates.json]
 *     [--locomo path/to/locomo10.json]
 * PostgreSQL needs SVC_TEST_DATABASE_URL (`source .test-data/env`); a fresh database is created
 * and dropped per Cairn column. `--hybrid false` skips the model server and the hybrid column.
 * Exits 0 whatever the figures: it prints them, it does not judge them. The recall figures are
 * deterministic for a seed; the timings are wall clock on whatever else the machine runs.
 *
 * Dataset (recall-quality/dataset.ts, seeded, no network): 24 conversations between two
 * speakers, each 12–28 dated sessions (5–45 days apart) of 10–30 turns. Most turns are small
 * talk reusing the same common words (names, "work", "family", "weekend", "kids"); a few state
 * facts in passing (jobs, home towns, family, pets, hobbies, instruments, food, books,
 * allergies, dated events, moves, sports, employers, trips, siblings). About 40 questions per
 * conversation, each with labelled evidence turns, in six categories: single-hop, temporal,
 * updated-current, updated-previous, multi-hop and old-common-words (evidence from the first
 * quarter of the sessions sharing only common words with the question, e.g. "What does Maya do
 * for work?" against "Maya: Another night shift in the ER tomorrow …").
 *
 * With `--locomo`, the public LoCoMo benchmark instead (recall-quality/locomo.ts): its 10
 * conversations and their questions of categories 1–4, from a locomo10.json you supply (from
 * github.com/snap-research/locomo; not shipped here, nothing is downloaded).
 *
 * Cairn (recall-quality/cairn-run.ts): an in-process platform as the tests build it, once with
 * semantic search off (lexical) and once on (hybrid); every turn imported as a memory
 * ("Speaker: text", kind note, one scope per conversation, turn id in metadata, session date as
 * document_date, session date plus a minute per turn as created_at) through
 * POST /v1/memory/import in batches of 500, every question asked through
 * GET /v1/memory/search?q=…&scope=…&limit=10. Hybrid: the real model server
 * (test/model-server/model-server-process.ts, its default model, or SVC_MODEL_EMBEDDING_MODEL) started for the run, the platform
 * with SVC_MEMORY_EMBEDDINGS_ENABLED=true pointing at it, and the questions asked only once
 * GET /v1/memory/metrics counts every memory embedded; the time that took and the model id are
 * printed. `--dump` also writes each question's deeper lexical and vector candidates to a file
 * (recall-quality/candidate-dump.ts) for recall-quality/fusion-sweep.ts.
 * BM25: k1 1.2, b 0.75, per conversation over the same "Speaker: text" strings; tokens are
 * lowercase letter/digit runs, no stemming, minus a small English stopword list
 * (recall-quality/bm25.ts).
 * recall@10 of a question: the fraction of its evidence turns in the top 10; averaged per
 * category and overall.
 */
import { parseArgs } from "node:util";
import { ensureModelServerEnvironment, startModelServer } from "../model-server/model-server-process.ts";
import type { StorageTarget } from "../support/platforms.ts";
import { Bm25Index } from "./recall-quality/bm25.ts";
import { type CairnRun, runCairn } from "./recall-quality/cairn-run.ts";
import { dumpCandidates } from "./recall-quality/candidate-dump.ts";
import {
  generateDataset,
  categories as generatedCategories,
  type Question,
  turnText,
} from "./recall-quality/dataset.ts";
import { loadLocomo, locomoCategories } from "./recall-quality/locomo.ts";

const { values } = parseArgs({
  options: {
    target: { type: "string", default: "sqlite" },
    conversations: { type: "string", default: "24" },
    seed: { type: "string", default: "20261124" },
    examples: { type: "boolean", default: false },
    hybrid: { type: "string", default: "true" },
    dump: { type: "string" },
    locomo: { type: "string" },
  },
});
const target = values.target as StorageTarget;
if (target !== "sqlite" && target !== "postgresql") throw new Error("--target is sqlite or postgresql");
if (values.hybrid !== "true" && values.hybrid !== "false") throw new Error("--hybrid is true or false");
const limit = 10;

const generationStart = performance.now();
const locomo = values.locomo === undefined ? undefined : loadLocomo(values.locomo);
const dataset =
  locomo?.conversations ??
  generateDataset({ conversations: Number(values.conversations), seed: Number(values.seed) });
const generationMs = performance.now() - generationStart;
const categories: readonly string[] = locomo ? locomoCategories : generatedCategories;
const turns = dataset.flatMap((conversation) => conversation.turns);
const questions = dataset.flatMap((conversation) => conversation.questions);
const textOf = new Map(turns.map((turn) => [turn.id, turnText(turn)]));

const sessions = dataset.reduce(
  (sum, conversation) => sum + new Set(conversation.turns.map((turn) => turn.session)).size,
  0,
);
const firstDate = turns.map((turn) => turn.sessionDate).sort()[0];
const lastDate = turns
  .map((turn) => turn.sessionDate)
  .sort()
  .at(-1);
console.log(
  `== dataset: ${dataset.length} conversations, ${sessions} sessions, ${turns.length} turns, ${questions.length} questions (${locomo ? `LoCoMo from ${values.locomo}, ${locomo.skipped} questions left out (adversarial or without evidence), read` : `seed ${values.seed}, generated`} in ${generationMs.toFixed(0)} ms)`,
);
console.log(
  `   sessions dated ${firstDate?.slice(0, 10)} to ${lastDate?.slice(0, 10)}; ${(turns.length / dataset.length).toFixed(0)} turns per conversation on average`,
);
console.log(
  `   questions: ${categories.map((category) => `${category} ${questions.filter((question) => question.category === category).length}`).join(", ")}`,
);

function recallOf(question: Question, found: string[]): number {
  const hits = question.evidence.filter((id) => found.includes(id)).length;
  return hits / question.evidence.length;
}

// BM25, one index per conversation.
const bm25Start = performance.now();
const bm25Found = new Map<Question, string[]>();
for (const conversation of dataset) {
  const index = new Bm25Index();
  for (const turn of conversation.turns) index.add(turn.id, textOf.get(turn.id) as string);
  for (const question of conversation.questions)
    bm25Found.set(question, index.search(question.question, limit));
}
const bm25Ms = performance.now() - bm25Start;

// Cairn over REST, in process: lexical, then hybrid against the real model server.
const lexical = await runCairn({ target, turns, questions, textOf, limit });
let hybrid: CairnRun | undefined;
if (values.hybrid !== "false") {
  ensureModelServerEnvironment();
  const modelServer = await startModelServer();
  try {
    hybrid = await runCairn({
      target,
      turns,
      questions,
      textOf,
      limit,
      embeddingBaseUrl: `${modelServer.url}/v1`,
      afterQuestions: values.dump
        ? (test, _key, accountId) => dumpCandidates(test, accountId, questions, values.dump as string)
        : undefined,
    });
  } finally {
    await modelServer.stop();
  }
}

const mean = (numbers: number[]) =>
  numbers.reduce((sum, value) => sum + value, 0) / Math.max(1, numbers.length);
const recallFor = (found: Map<Question, string[]>, subset: Question[]) =>
  mean(subset.map((question) => recallOf(question, found.get(question) ?? [])));
const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;
const row = (label: string, subset: Question[]) => {
  const bm25 = recallFor(bm25Found, subset);
  const cairn = recallFor(lexical.found, subset);
  const cells = [label.padEnd(18), String(subset.length).padStart(5), bm25.toFixed(3), cairn.toFixed(3)];
  if (hybrid) {
    const fused = recallFor(hybrid.found, subset);
    cells.push(fused.toFixed(3), signed(cairn - bm25).padStart(7), signed(fused - cairn).padStart(7));
  } else cells.push(signed(cairn - bm25).padStart(7));
  return cells.join("   ");
};

console.log(`\n== recall@${limit} (${target})`);
console.log(
  hybrid
    ? `${"category".padEnd(18)}   ${"n".padStart(5)}   bm25    lexical   hybrid   lex−bm25   hyb−lex`
    : `${"category".padEnd(18)}   ${"n".padStart(5)}   bm25    lexical   lex−bm25`,
);
for (const category of categories)
  console.log(
    row(
      category,
      questions.filter((question) => question.category === category),
    ),
  );
console.log(row("overall", questions));
if (hybrid?.warned) console.log(`   warning: ${hybrid.warned} hybrid questions were answered lexically only`);

console.log(`\n== timing (wall clock on a shared machine: not deterministic, unlike the recall figures)`);
const timing = (label: string, run: CairnRun) => {
  console.log(
    `${label} import: ${turns.length} memories in ${(run.importMs / 1000).toFixed(1)} s (${((turns.length / run.importMs) * 1000).toFixed(0)} per s)`,
  );
  console.log(
    `${label} search: ${questions.length} queries in ${(run.searchMs / 1000).toFixed(1)} s (${(run.searchMs / questions.length).toFixed(1)} ms each)`,
  );
};
timing("cairn lexical", lexical);
if (hybrid) {
  timing("cairn hybrid", hybrid);
  const embeddedAfter = (hybrid.embeddedAfterMs ?? 0) / 1000;
  console.log(
    `cairn hybrid embedding: all ${hybrid.embedded} current memories embedded ${embeddedAfter.toFixed(1)} s after the import began (${((hybrid.embedded ?? 0) / embeddedAfter).toFixed(0)} per s), ${((hybrid.embeddingTailMs ?? 0) / 1000).toFixed(1)} s after its last answer; model ${hybrid.modelId}`,
  );
}
console.log(
  `bm25 index + search: ${(bm25Ms / 1000).toFixed(2)} s (${(bm25Ms / questions.length).toFixed(2)} ms per query, index build included)`,
);

if (values.examples) {
  console.log(`\n== one question per category, with evidence and where each system ranked it`);
  const show = (found: string[], id: string) => {
    const rank = found.indexOf(id);
    return rank === -1 ? "missed" : `#${rank + 1}`;
  };
  for (const category of categories) {
    const question = questions.find((entry) => entry.category === category);
    if (question === undefined) continue;
    console.log(`[${category}] ${question.question}  (answer: ${question.answer})`);
    for (const id of question.evidence)
      console.log(
        `   ${id} bm25 ${show(bm25Found.get(question) ?? [], id)}, lexical ${show(lexical.found.get(question) ?? [], id)}${hybrid ? `, hybrid ${show(hybrid.found.get(question) ?? [], id)}` : ""}: ${textOf.get(id)}`,
      );
  }
}
