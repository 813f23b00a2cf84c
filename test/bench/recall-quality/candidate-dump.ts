/**
 * Writes what hybrid recall fuses, per question, to a JSON file: the lexical ranking's and the
 * vector search's candidates deeper than recall uses, each by turn id. Fusion rules, weights,
 * floors and depths can then be compared offline (recall-quality/fusion-sweep.ts) without
 * embedding the corpus again for each variant.
 */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { asksForHistory } from "../../../core/memory/history.ts";
import { type FusedMemory, fuseRankings } from "../../../core/memory/hybrid.ts";
import {
  candidateDepth,
  recallSemanticFloor,
  vectorBonuses,
  withQuerySignals,
} from "../../../core/memory/hybrid-recall.ts";
import { phraseMatches } from "../../../core/memory/scoring.ts";
import { nearestLeadLength } from "../../../core/ports/memory-store.ts";
import type { TestPlatform } from "../../support/platforms.ts";
import { scopeOf } from "./cairn-run.ts";
import { type Conversation, generateDataset, type Question, turnText } from "./dataset.ts";
import { loadLocomo } from "./locomo.ts";

export interface DumpedQuestion {
  category: string;
  question: string;
  evidence: string[];
  /** Recall's lexical ranking, best first. */
  lexical: Array<{ turn: string; score: number; phrase: boolean }>;
  /** The nearest vectors in the question's scope, nearest first. */
  nearest: Array<{ turn: string; similarity: number }>;
}

/** Deeper than hybrid recall's 50 per side, so deeper candidate lists can be tried. */
const dumpDepth = 200;

export async function dumpCandidates(
  test: TestPlatform,
  accountId: string,
  questions: Question[],
  file: string,
): Promise<void> {
  const { platform } = test;
  const embedder = platform.memoryEmbedder;
  if (!embedder) throw new Error("the candidate dump needs semantic search on");
  const dumped: DumpedQuestion[] = [];
  for (const question of questions) {
    const now = platform.clock.now();
    const scope = scopeOf(question.conversation);
    const lexical = await platform.memorySearch.recall(accountId, {
      query: question.question,
      scope,
      limit: dumpDepth,
      now,
      commonTermRows: platform.config.SVC_MEMORY_COMMON_TERM_ROWS,
    });
    if (lexical === null) throw new Error("recall answered null without unlessLinksQueued");
    const query = await embedder.embedQuery(question.question);
    if ("warning" in query) throw new Error(query.warning);
    const nearest = await platform.storage.memories.nearest(
      accountId,
      {
        path: query.path,
        vector: query.vector,
        scope,
        limit: dumpDepth,
        includeSuperseded: asksForHistory(question.question),
        fallbackLimit: platform.config.SVC_MEMORY_VECTOR_FALLBACK_LIMIT,
        efSearch: platform.config.SVC_MEMORY_HNSW_EF_SEARCH,
      },
      now,
    );
    const records = await platform.storage.memories.getMany(
      accountId,
      nearest.map((row) => row.id),
      now,
    );
    const turnOf = new Map(records.map((record) => [record.id, String(record.metadata.turn_id)]));
    dumped.push({
      category: question.category,
      question: question.question,
      evidence: question.evidence,
      lexical: lexical.map(({ record, score }) => ({
        turn: String(record.metadata.turn_id),
        score,
        phrase: phraseMatches(question.question, record.content) !== null,
      })),
      nearest: nearest.map((row) => ({ turn: turnOf.get(row.id) ?? "?", similarity: row.similarity })),
    });
  }
  await writeFile(file, JSON.stringify(dumped));
  console.log(`   candidates of ${dumped.length} questions written to ${file}`);
}

/**
 * For the scripts that rank a dump offline: the dump named on the command line and the dataset it
 * was made from (`--locomo path`, or the generated one of recall-quality.ts with `--conversations`
 * and `--seed`), checked to match, with its turns as Cairn stores them: each one's text
 * (`textOf`) and when it was said, its session's date (`saidAtOf`).
 */
export async function readDumpAndDataset(script: string): Promise<{
  dumped: DumpedQuestion[];
  conversations: Conversation[];
  textOf: Map<string, string>;
  saidAtOf: Map<string, Date>;
}> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      locomo: { type: "string" },
      conversations: { type: "string", default: "24" },
      seed: { type: "string", default: "20261124" },
    },
  });
  const file = positionals[0];
  if (!file) throw new Error(`usage: ${script} candidates.json [--locomo path]`);
  const dumped = JSON.parse(await readFile(file, "utf8")) as DumpedQuestion[];
  const conversations =
    values.locomo === undefined
      ? generateDataset({ conversations: Number(values.conversations), seed: Number(values.seed) })
      : loadLocomo(values.locomo).conversations;
  const turns = conversations.flatMap((conversation) => conversation.turns);
  const known = new Set(turns.map((turn) => turn.id));
  if (!dumped.every((question) => question.evidence.every((turn) => known.has(turn))))
    throw new Error("the dump is of another dataset");
  return {
    dumped,
    conversations,
    textOf: new Map(turns.map((turn) => [turn.id, turnText(turn)])),
    saidAtOf: new Map(turns.map((turn) => [turn.id, new Date(turn.sessionDate)])),
  };
}

/**
 * A dumped question's hybrid ranking as hybridRecall makes it (both sides at recall's depth, the
 * vector neighbours raised by `bonuses` as `withQuerySignals` raises them); `textOf` gives a
 * turn's stored text, `saidAtOf` its session's date (both from `readDumpAndDataset`).
 */
export function hybridRanking(
  question: DumpedQuestion,
  textOf: ReadonlyMap<string, string>,
  { bonuses = vectorBonuses, saidAtOf = new Map<string, Date>() } = {},
): FusedMemory[] {
  const nearest = question.nearest.slice(0, candidateDepth).map((near) => ({
    id: near.turn,
    similarity: near.similarity,
    updatedAt: new Date(0),
    lead: (textOf.get(near.turn) ?? "").slice(0, nearestLeadLength),
    saidAt: saidAtOf.get(near.turn) ?? new Date(Number.NaN),
  }));
  return fuseRankings(
    question.lexical
      .slice(0, candidateDepth)
      .map((hit) => ({ id: hit.turn, score: hit.score, phrase: hit.phrase })),
    withQuerySignals(question.question, new Date(), nearest, bonuses),
    { semanticFloor: recallSemanticFloor },
  );
}

/** A dumped question's turns, best first (only the first ten are read). */
export type DumpRanker = (question: DumpedQuestion) => readonly string[];

function recallAtTen(rank: DumpRanker, questions: readonly DumpedQuestion[]): string {
  let sum = 0;
  for (const question of questions) {
    const top = rank(question).slice(0, 10);
    sum += question.evidence.filter((turn) => top.includes(turn)).length / question.evidence.length;
  }
  return (sum / Math.max(1, questions.length)).toFixed(3);
}

/**
 * Recall@10 of each variant, one line each under a header: on the even questions (where a
 * variant is chosen), then on the odd ones by category and together (what is reported), then
 * over all questions.
 */
export function printFitAndReport(
  dumped: readonly DumpedQuestion[],
  variants: ReadonlyArray<readonly [label: string, rank: DumpRanker]>,
  { heading = "variant", width = 26 } = {},
): void {
  const categories = [...new Set(dumped.map((question) => question.category))];
  const fitHalf = dumped.filter((_, index) => index % 2 === 0);
  const reportHalf = dumped.filter((_, index) => index % 2 === 1);
  console.log(
    `${heading.padEnd(width)}  fit     ${categories.map((category) => category.slice(0, 5)).join("  ")}   report  all`,
  );
  for (const [label, rank] of variants) {
    const cells = categories.map((category) =>
      recallAtTen(
        rank,
        reportHalf.filter((question) => question.category === category),
      ),
    );
    console.log(
      `${label.padEnd(width)}  ${recallAtTen(rank, fitHalf)}   ${cells.join("  ")}   ${recallAtTen(rank, reportHalf)}   ${recallAtTen(rank, dumped)}`,
    );
  }
}
