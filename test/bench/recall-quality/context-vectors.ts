/**
 * Would a turn's vector find more with the turn before it as context (issue 45 item 1)? Outside
 * the server: every turn embedded by the real model server (its default model) as Cairn embeds a
 * memory ("Speaker: text"), and again with the previous turn of the same session in front of it;
 * each question embedded as a query; then recall@10 of the vectors alone, by category, for:
 * - `plain`: the turn alone (what Cairn stores today);
 * - `previous`: the turn with the one before it;
 * - `previous + plain, mean`: the two cosines averaged; `max`: the larger of the two (both need
 *   two vectors a memory); `one vector`: the cosine with the two unit vectors' sum made unit again
 *   (one stored vector a memory, as today).
 * No weight is fitted: none of these rules has anything to tune.
 *
 * Run with `npx node test/bench/recall-quality/context-vectors.ts [--locomo path]` (the generated
 * set of recall-quality.ts otherwise, `--conversations`, `--seed`). A few minutes: every turn is
 * embedded twice. With `--dump candidates.json --rewrite out.json` (a dump recall-quality.ts
 * wrote for the same dataset) it also writes the dump again with each question's vector
 * candidates ranked by the one-vector rule, for recall-quality/fusion-sweep.ts to fuse as recall
 * does. With `--feedback`, the one-vector rule again with the query moved towards its nearest
 * turns (pseudo-relevance feedback: the query plus `weight` × the mean of its `seeds` nearest
 * stored vectors, made unit), for seeds 1, 3 and 10 and weights 0.25, 0.5 and 1.
 */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  embed as embedRequest,
  ensureModelServerEnvironment,
  startModelServer,
} from "../../model-server/model-server-process.ts";
import type { DumpedQuestion } from "./candidate-dump.ts";
import { type Conversation, generateDataset, type Turn, turnText } from "./dataset.ts";
import { loadLocomo } from "./locomo.ts";

const { values } = parseArgs({
  options: {
    locomo: { type: "string" },
    conversations: { type: "string", default: "24" },
    seed: { type: "string", default: "20261124" },
    dump: { type: "string" },
    rewrite: { type: "string" },
    feedback: { type: "boolean", default: false },
  },
});
if ((values.dump === undefined) !== (values.rewrite === undefined))
  throw new Error("--dump and --rewrite go together");
const conversations: Conversation[] =
  values.locomo === undefined
    ? generateDataset({ conversations: Number(values.conversations), seed: Number(values.seed) })
    : loadLocomo(values.locomo).conversations;

const withPrevious = (turns: Turn[], index: number) =>
  index > 0 && turns[index - 1].session === turns[index].session
    ? `${turnText(turns[index - 1])}\n${turnText(turns[index])}`
    : turnText(turns[index]);

ensureModelServerEnvironment();
const server = await startModelServer();
try {
  async function embed(texts: string[], inputType: "query" | "document"): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += 64) {
      const { response, body } = await embedRequest(server, {
        input: texts.slice(start, start + 64),
        input_type: inputType,
      });
      if (!response.ok) throw new Error(`embeddings: ${response.status} ${JSON.stringify(body)}`);
      for (const { embedding } of body.data) {
        const vector = Float32Array.from(embedding);
        const norm = Math.hypot(...vector);
        vectors.push(vector.map((value) => value / norm));
      }
    }
    return vectors;
  }
  const dot = (left: Float32Array, right: Float32Array) => {
    let sum = 0;
    for (let index = 0; index < left.length; index++) sum += left[index] * right[index];
    return sum;
  };

  const started = performance.now();
  const alone: Float32Array[][] = [];
  const context: Float32Array[][] = [];
  const questions: Float32Array[][] = [];
  for (const conversation of conversations) {
    alone.push(await embed(conversation.turns.map(turnText), "document"));
    context.push(
      await embed(
        conversation.turns.map((_, index) => withPrevious(conversation.turns, index)),
        "document",
      ),
    );
    questions.push(
      await embed(
        conversation.questions.map((question) => question.question),
        "query",
      ),
    );
  }
  const turnCount = conversations.reduce((sum, conversation) => sum + conversation.turns.length, 0);
  const questionCount = conversations.reduce((sum, conversation) => sum + conversation.questions.length, 0);
  console.log(
    `${values.locomo ? "LoCoMo" : "generated"}: ${conversations.length} conversations, ${turnCount} turns, ${questionCount} questions, embedded in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );

  // The query's cosine with the unit sum of a turn's two vectors (what one stored vector would give).
  const oneVector = (query: Float32Array, first: Float32Array, second: Float32Array) =>
    (dot(query, first) + dot(query, second)) / Math.sqrt(2 + 2 * dot(first, second));
  if (values.dump !== undefined && values.rewrite !== undefined) {
    const dumped = JSON.parse(await readFile(values.dump, "utf8")) as DumpedQuestion[];
    let next = 0;
    conversations.forEach((conversation, which) => {
      conversation.questions.forEach((question, asked) => {
        const entry = dumped[next++];
        if (entry?.question !== question.question) throw new Error("the dump is of another dataset");
        const query = questions[which][asked];
        // Only the turns the store offered (current rows, or superseded ones too for a question
        // about history), ranked again: a turn past the store's depth cannot come in, so the
        // fused figure is a lower bound.
        const offered = new Set(entry.nearest.map((near) => near.turn));
        entry.nearest = conversation.turns
          .flatMap((turn, index) =>
            offered.has(turn.id)
              ? [{ turn: turn.id, similarity: oneVector(query, alone[which][index], context[which][index]) }]
              : [],
          )
          .sort((first, second) => second.similarity - first.similarity);
      });
    });
    await writeFile(values.rewrite, JSON.stringify(dumped));
  }

  // Each rule scores a turn from the query's cosine with its vector alone, with its vector in
  // context, and the cosine of those two vectors.
  const rules: Record<string, (alone: number, context: number, between: number) => number> = {
    plain: (score) => score,
    previous: (_, score) => score,
    "previous + plain, mean": (first, second) => (first + second) / 2,
    "previous + plain, max": (first, second) => Math.max(first, second),
    // One vector a memory: the two unit vectors' sum, made unit again.
    "previous + plain, one vector": (first, second, between) => (first + second) / Math.sqrt(2 + 2 * between),
  };
  for (const [name, rule] of Object.entries(rules)) {
    const byCategory = new Map<string, number[]>();
    conversations.forEach((conversation, which) => {
      conversation.questions.forEach((question, asked) => {
        const query = questions[which][asked];
        const ranked = conversation.turns
          .map((turn, index) => ({
            id: turn.id,
            score: rule(
              dot(query, alone[which][index]),
              dot(query, context[which][index]),
              dot(alone[which][index], context[which][index]),
            ),
          }))
          .sort((first, second) => second.score - first.score)
          .slice(0, 10)
          .map((found) => found.id);
        const hits = question.evidence.filter((id) => ranked.includes(id)).length;
        const recalls = byCategory.get(question.category) ?? [];
        recalls.push(hits / question.evidence.length);
        byCategory.set(question.category, recalls);
      });
    });
    const mean = (recalls: number[]) =>
      (recalls.reduce((sum, recall) => sum + recall, 0) / recalls.length).toFixed(3);
    console.log(
      `${name}: recall@10 ${mean([...byCategory.values()].flat())} (${[...byCategory].map(([category, recalls]) => `${category} ${mean(recalls)}`).join(", ")})`,
    );
  }
  if (values.feedback) {
    const unit = (vector: Float32Array) => {
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    };
    // What one stored vector a memory is: the two unit vectors' sum, made unit.
    const stored = alone.map((turns, which) =>
      turns.map((vector, index) => unit(vector.map((value, at) => value + context[which][index][at]))),
    );
    for (const seeds of [1, 3, 10])
      for (const weight of [0.25, 0.5, 1]) {
        const recalls = new Map<string, number[]>();
        conversations.forEach((conversation, which) => {
          conversation.questions.forEach((question, asked) => {
            const query = questions[which][asked];
            const nearestTo = (vector: Float32Array) =>
              stored[which]
                .map((turn, index) => ({ index, score: dot(vector, turn) }))
                .sort((first, second) => second.score - first.score);
            const mean = new Float32Array(query.length);
            for (const { index } of nearestTo(query).slice(0, seeds))
              for (let at = 0; at < mean.length; at++) mean[at] += stored[which][index][at] / seeds;
            const moved = unit(query.map((value, at) => value + weight * mean[at]));
            const top = nearestTo(moved)
              .slice(0, 10)
              .map(({ index }) => conversation.turns[index].id);
            const found = question.evidence.filter((id) => top.includes(id)).length;
            recalls.set(question.category, [
              ...(recalls.get(question.category) ?? []),
              found / question.evidence.length,
            ]);
          });
        });
        const mean = (values: number[]) =>
          (values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(3);
        console.log(
          `one vector, query fed back from its ${seeds} nearest × ${weight}: recall@10 ${mean([...recalls.values()].flat())} (${[...recalls].map(([category, values]) => `${category} ${mean(values)}`).join(", ")})`,
        );
      }
  }
} finally {
  await server.stop();
}
