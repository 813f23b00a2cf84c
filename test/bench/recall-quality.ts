/**
 * Recall quality on long multi-session conversations: recall@10 for Cairn and for plain Okapi
 * BM25 over the same turns, side by side, in one run.
 *
 * Usage:
 *   npx node test/bench/recall-quality.ts [--target sqlite|postgresql] [--conversations 24]
 *     [--seed 20261124] [--examples]
 * PostgreSQL needs SVC_TEST_DATABASE_URL (`source .test-data/env`); a fresh database is created
 * and dropped. Exits 0 whatever the figures: it prints them, it does not judge them.
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
 * Cairn: an in-process platform as the tests build it; every turn imported as a memory
 * ("Speaker: text", kind note, one scope per conversation, turn id in metadata, session date as
 * document_date, session date plus a minute per turn as created_at) through
 * POST /v1/memory/import in batches of 500, every question asked through
 * GET /v1/memory/search?q=…&scope=…&limit=10.
 * BM25: k1 1.2, b 0.75, per conversation over the same "Speaker: text" strings; tokens are
 * lowercase letter/digit runs, no stemming, minus a small English stopword list
 * (recall-quality/bm25.ts).
 * recall@10 of a question: the fraction of its evidence turns in the top 10; averaged per
 * category and overall.
 */
import { parseArgs } from "node:util";
import { createAccountWithKey, createTestPlatform, type StorageTarget } from "../support/platforms.ts";
import { Bm25Index } from "./recall-quality/bm25.ts";
import { type Category, categories, generateDataset, type Question } from "./recall-quality/dataset.ts";

const { values } = parseArgs({
  options: {
    target: { type: "string", default: "sqlite" },
    conversations: { type: "string", default: "24" },
    seed: { type: "string", default: "20261124" },
    examples: { type: "boolean", default: false },
  },
});
const target = values.target as StorageTarget;
if (target !== "sqlite" && target !== "postgresql") throw new Error("--target is sqlite or postgresql");
const limit = 10;
const batchSize = 500;

const generationStart = performance.now();
const dataset = generateDataset({ conversations: Number(values.conversations), seed: Number(values.seed) });
const generationMs = performance.now() - generationStart;
const turns = dataset.flatMap((conversation) => conversation.turns);
const questions = dataset.flatMap((conversation) => conversation.questions);
const textOf = new Map(turns.map((turn) => [turn.id, `${turn.speaker}: ${turn.text}`]));
const scopeOf = (conversation: number) => `conversation-${conversation}`;

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
  `== dataset: ${dataset.length} conversations, ${sessions} sessions, ${turns.length} turns, ${questions.length} questions (seed ${values.seed}, generated in ${generationMs.toFixed(0)} ms)`,
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

// Cairn over REST, in process.
const test = await createTestPlatform(target, {
  environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000" },
});
const cairnFound = new Map<Question, string[]>();
let importMs = 0;
let searchMs = 0;
try {
  const { key } = await createAccountWithKey(test);
  const importStart = performance.now();
  for (let start = 0; start < turns.length; start += batchSize) {
    const memories = turns.slice(start, start + batchSize).map((turn) => ({
      content: textOf.get(turn.id),
      scope: scopeOf(turn.conversation),
      kind: "note",
      metadata: {
        turn_id: turn.id,
        conversation: turn.conversation,
        session: turn.session,
        speaker: turn.speaker,
      },
      source_session_id: `c${turn.conversation}-s${turn.session}`,
      document_date: turn.sessionDate,
      created_at: turn.at,
      updated_at: turn.at,
    }));
    const response = await test.request("/v1/memory/import", {
      method: "POST",
      json: { memories },
      credential: key,
    });
    if (response.status !== 201) throw new Error(`import: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { memories: unknown[] };
    if (body.memories.length !== memories.length)
      console.log(`   note: import kept ${body.memories.length} of ${memories.length} memories in one batch`);
  }
  importMs = performance.now() - importStart;

  const searchStart = performance.now();
  for (const question of questions) {
    const query = new URLSearchParams({
      q: question.question,
      scope: scopeOf(question.conversation),
      limit: String(limit),
    });
    const response = await test.request(`/v1/memory/search?${query}`, { credential: key });
    if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { memories: Array<{ metadata: { turn_id?: string } }> };
    cairnFound.set(
      question,
      body.memories.map((memory) => memory.metadata.turn_id).filter((id): id is string => id !== undefined),
    );
  }
  searchMs = performance.now() - searchStart;
} finally {
  await test.close();
}

const mean = (numbers: number[]) =>
  numbers.reduce((sum, value) => sum + value, 0) / Math.max(1, numbers.length);
const row = (label: string, subset: Question[]) => {
  const cairn = mean(subset.map((question) => recallOf(question, cairnFound.get(question) ?? [])));
  const bm25 = mean(subset.map((question) => recallOf(question, bm25Found.get(question) ?? [])));
  const delta = cairn - bm25;
  return `${label.padEnd(18)} ${String(subset.length).padStart(5)}   ${cairn.toFixed(3)}   ${bm25.toFixed(3)}   ${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`;
};

console.log(`\n== recall@${limit} (${target})`);
console.log(`${"category".padEnd(18)} ${"n".padStart(5)}   cairn   bm25    cairn−bm25`);
for (const category of categories)
  console.log(
    row(
      category,
      questions.filter((question) => question.category === category),
    ),
  );
console.log(row("overall", questions));

console.log(`\n== timing`);
console.log(
  `cairn import: ${turns.length} memories in ${(importMs / 1000).toFixed(1)} s (${((turns.length / importMs) * 1000).toFixed(0)} per s)`,
);
console.log(
  `cairn search: ${questions.length} queries in ${(searchMs / 1000).toFixed(1)} s (${(searchMs / questions.length).toFixed(1)} ms each)`,
);
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
    const question = questions.find((entry) => entry.category === category) as Question;
    console.log(`[${category satisfies Category}] ${question.question}  (answer: ${question.answer})`);
    for (const id of question.evidence)
      console.log(
        `   ${id} cairn ${show(cairnFound.get(question) ?? [], id)}, bm25 ${show(bm25Found.get(question) ?? [], id)}: ${textOf.get(id)}`,
      );
  }
}
