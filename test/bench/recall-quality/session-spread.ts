/**
 * Would hybrid recall's ten find more evidence if their sessions counted (issue 45 item 1)? A
 * multi-hop question's evidence lies in several sessions, while a turn's vector now carries the
 * turn before it, so neighbours in one session rank together. On a candidate dump
 * (recall-quality.ts --dump), today's ranking (core's fuseRankings with the named-speaker bonus)
 * is cut to ten two ways:
 * - spread: in order, skipping a row once its session holds `cap` of the ten, or once the turn
 *   next to it in its session is in them (`adj`), after the first `kept` rows; rows skipped fill
 *   what is left;
 * - gather: each row gains `beta` × the fused scores of the other rows of its session among the
 *   first `k` (a session many candidates come from is likelier the one asked about).
 * Variants are chosen on the even questions and reported on the odd ones (fit, then the odd half
 * by category, the odd half, all). Deterministic: no model server, no database.
 *
 * Usage: npx node test/bench/recall-quality/session-spread.ts candidates.json
 *   [--locomo path/to/locomo10.json] (the dump's dataset: the generated one of recall-quality.ts by
 *   default, `--conversations`, `--seed`).
 */
import type { FusedMemory } from "../../../core/memory/hybrid.ts";
import {
  type DumpedQuestion,
  hybridRanking,
  printFitAndReport,
  readDumpAndDataset,
} from "./candidate-dump.ts";

const { dumped, conversations, textOf, saidAtOf } = await readDumpAndDataset("session-spread.ts");
const turns = conversations.flatMap((conversation) => conversation.turns);
const sessionOf = new Map(turns.map((turn) => [turn.id, `${turn.conversation}/${turn.session}`]));
const neighboursOf = new Map<string, string[]>();
for (const { turns: ordered } of conversations)
  for (let index = 1; index < ordered.length; index++) {
    const [before, after] = [ordered[index - 1], ordered[index]];
    if (before.session !== after.session) continue;
    neighboursOf.set(before.id, [...(neighboursOf.get(before.id) ?? []), after.id]);
    neighboursOf.set(after.id, [...(neighboursOf.get(after.id) ?? []), before.id]);
  }

interface Spread {
  /** Most rows of one session in the ten. */
  cap: number;
  /** Skip a row whose session neighbour is already in. */
  adjacent: boolean;
  /** Rows that keep their place whatever their session. */
  kept: number;
}

function spread(ranking: string[], variant: Spread): string[] {
  const picked: string[] = ranking.slice(0, variant.kept);
  const skipped: string[] = [];
  const perSession = new Map<string, number>();
  const add = (id: string) =>
    perSession.set(sessionOf.get(id) ?? id, (perSession.get(sessionOf.get(id) ?? id) ?? 0) + 1);
  for (const id of picked) add(id);
  for (const id of ranking.slice(variant.kept)) {
    if (picked.length === 10) break;
    const full = (perSession.get(sessionOf.get(id) ?? id) ?? 0) >= variant.cap;
    const besideOne =
      variant.adjacent && (neighboursOf.get(id) ?? []).some((other) => picked.includes(other));
    if (full || besideOne) {
      skipped.push(id);
      continue;
    }
    picked.push(id);
    add(id);
  }
  return [...picked, ...skipped].slice(0, 10);
}

function gather(rows: FusedMemory[], beta: number, depth: number): string[] {
  const sessionScore = new Map<string, number>();
  for (const row of rows.slice(0, depth)) {
    const session = sessionOf.get(row.id) ?? row.id;
    sessionScore.set(session, (sessionScore.get(session) ?? 0) + row.score);
  }
  return rows
    .map((row, position) => {
      const others =
        (sessionScore.get(sessionOf.get(row.id) ?? row.id) ?? 0) - (position < depth ? row.score : 0);
      return { id: row.id, value: row.score + beta * others };
    })
    .sort((first, second) => second.value - first.value)
    .slice(0, 10)
    .map((row) => row.id);
}

type Ten = (rows: FusedMemory[]) => string[];
const rankings = new Map(dumped.map((question) => [question, hybridRanking(question, textOf, { saidAtOf })]));

const variants: Array<[string, Ten]> = [["today", (rows) => rows.slice(0, 10).map((row) => row.id)]];
for (const kept of [0, 3])
  for (const [cap, adjacent] of [
    [3, false],
    [5, false],
    [10, true],
    [5, true],
  ] as const)
    variants.push([
      `spread cap ${cap}${adjacent ? " adj" : ""} kept ${kept}`,
      (rows) =>
        spread(
          rows.map((row) => row.id),
          { cap, adjacent, kept },
        ),
    ]);
for (const depth of [10, 50])
  for (const beta of [0.02, 0.05, 0.1, 0.2])
    variants.push([`gather k ${depth} beta ${beta}`, (rows) => gather(rows, beta, depth)]);

printFitAndReport(
  dumped,
  variants.map(
    ([label, ten]) => [label, (question: DumpedQuestion) => ten(rankings.get(question) ?? [])] as const,
  ),
);
