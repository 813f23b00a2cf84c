/**
 * Writes what hybrid recall fuses, per question, to a JSON file: the lexical ranking's and the
 * vector search's candidates deeper than recall uses, each by turn id. Fusion rules, weights,
 * floors and depths can then be compared offline (recall-quality/fusion-sweep.ts) without
 * embedding the corpus again for each variant.
 */
import { writeFile } from "node:fs/promises";
import { asksForHistory } from "../../../core/memory/history.ts";
import { phraseMatches } from "../../../core/memory/scoring.ts";
import type { TestPlatform } from "../../support/platforms.ts";
import { scopeOf } from "./cairn-run.ts";
import type { Question } from "./dataset.ts";

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
