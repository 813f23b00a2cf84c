/**
 * One Cairn column of the recall-quality benchmark: an in-process platform as the tests build it,
 * every turn imported as a memory through POST /v1/memory/import, every question asked through
 * GET /v1/memory/search. With a model server URL the platform has semantic search on, and the
 * questions wait until every memory has its vector (polled through GET /v1/memory/metrics), so
 * hybrid recall is measured on a fully embedded corpus.
 */
import {
  createAccountWithKey,
  createTestPlatform,
  type StorageTarget,
  type TestPlatform,
} from "../../support/platforms.ts";
import type { Question, Turn } from "./dataset.ts";

export interface CairnRunOptions {
  target: StorageTarget;
  turns: Turn[];
  questions: Question[];
  textOf: Map<string, string>;
  limit: number;
  /** The model server's base URL (…/v1); semantic search stays off without it. */
  embeddingBaseUrl?: string;
  /** Called with the platform and key after the questions, before it closes (the fusion sweep). */
  afterQuestions?: (test: TestPlatform, key: string, accountId: string) => Promise<void>;
}

export interface CairnRun {
  found: Map<Question, string[]>;
  importMs: number;
  /** From the first import request until every memory had its vector (hybrid only). */
  embeddedAfterMs?: number;
  /** The part of it after the import's last answer. */
  embeddingTailMs?: number;
  modelId?: string | null;
  /** Live, current memories with a vector when the questions began (superseded ones not counted). */
  embedded?: number;
  searchMs: number;
  /** Questions answered lexically with a warning (the query could not be embedded). */
  warned: number;
}

const batchSize = 500;
/** Embedding ten thousand turns on a busy 2-core machine takes minutes; this is far above it. */
const embeddingDeadlineMs = 60 * 60_000;

export const scopeOf = (conversation: number) => `conversation-${conversation}`;

export async function runCairn(options: CairnRunOptions): Promise<CairnRun> {
  const { turns, questions, textOf, limit } = options;
  const hybrid = options.embeddingBaseUrl !== undefined;
  const test = await createTestPlatform(options.target, {
    environment: {
      SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000",
      ...(hybrid
        ? {
            SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
            SVC_MEMORY_EMBEDDING_BASE_URL: options.embeddingBaseUrl as string,
            // The machine is shared: a slow query embedding must not turn a question lexical.
            SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: "120",
          }
        : {}),
    },
  });
  const found = new Map<Question, string[]>();
  const run: CairnRun = { found, importMs: 0, searchMs: 0, warned: 0 };
  try {
    const { key, accountId } = await createAccountWithKey(test);
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
        console.log(
          `   note: import kept ${body.memories.length} of ${memories.length} memories in one batch`,
        );
    }
    run.importMs = performance.now() - importStart;

    if (hybrid) {
      const metrics = await waitUntilEmbedded(test, key);
      run.embeddedAfterMs = performance.now() - importStart;
      run.embeddingTailMs = run.embeddedAfterMs - run.importMs;
      run.modelId = metrics.embedding_model_id;
      run.embedded = metrics.embedded_memories;
    }

    const searchStart = performance.now();
    for (const question of questions) {
      const query = new URLSearchParams({
        q: question.question,
        scope: scopeOf(question.conversation),
        limit: String(limit),
      });
      const response = await test.request(`/v1/memory/search?${query}`, { credential: key });
      if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as {
        memories: Array<{ metadata: { turn_id?: string } }>;
        warnings?: string[];
      };
      if (body.warnings !== undefined) run.warned++;
      found.set(
        question,
        body.memories.map((memory) => memory.metadata.turn_id).filter((id): id is string => id !== undefined),
      );
    }
    run.searchMs = performance.now() - searchStart;
    await options.afterQuestions?.(test, key, accountId);
  } finally {
    await test.close();
  }
  return run;
}

interface Metrics {
  total_memories: number;
  embedded_memories: number;
  embedding_model_id: string | null;
}

/** Polls the account's metrics until every live memory has a vector on the current path. */
async function waitUntilEmbedded(test: TestPlatform, key: string): Promise<Metrics> {
  const deadline = performance.now() + embeddingDeadlineMs;
  let lastReport = performance.now();
  for (;;) {
    const response = await test.request("/v1/memory/metrics", { credential: key });
    if (response.status !== 200) throw new Error(`metrics: ${response.status} ${await response.text()}`);
    const metrics = (await response.json()) as Metrics;
    if (metrics.total_memories > 0 && metrics.embedded_memories >= metrics.total_memories) return metrics;
    if (performance.now() > deadline)
      throw new Error(`embedding did not finish: ${metrics.embedded_memories} of ${metrics.total_memories}`);
    if (performance.now() - lastReport > 30_000) {
      console.log(`   embedding: ${metrics.embedded_memories} of ${metrics.total_memories} memories`);
      lastReport = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
