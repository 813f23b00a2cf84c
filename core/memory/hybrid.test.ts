/**
 * The fusion of lexical and vector rankings: a purely semantic match reaches the top, a keyword
 * match is never lost whatever the vectors say (adversarial lists included), phrase matches stay
 * first, and the result is deterministic with scores in [0, 1) at 6 decimal places.
 */
import { describe, expect, it } from "vitest";
import type { NearestMemory } from "../ports/memory-store.ts";
import { fuseRankings, type LexicalHit } from "./hybrid.ts";
import { vectorBonuses, withQuerySignals } from "./hybrid-recall.ts";

type VectorHit = Pick<NearestMemory, "id" | "similarity">;

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

/** A deterministic pseudo-random sequence, so the adversarial cases are reproducible. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe("fuseRankings", () => {
  it("puts a semantic match with no shared words in the top two above many keyword rows", () => {
    const lexical = Array.from({ length: 20 }, (_, index) => ({
      id: `lex-${index}`,
      score: 0.4 - index / 100,
    }));
    const fused = fuseRankings(lexical, [
      { id: "paraphrase", similarity: 0.71 },
      { id: "lex-7", similarity: 0.3 },
    ]);
    expect(ids(fused).slice(0, 2).sort()).toEqual(["lex-0", "paraphrase"]);
    expect(ids(fused)).toHaveLength(21);
  });

  it("keeps the lexical leader in the top two when every vector points elsewhere", () => {
    const lexical: LexicalHit[] = Array.from({ length: 10 }, (_, index) => ({
      id: `row-${index}`,
      score: 0.3 - index / 1000,
    }));
    // The adversary: the other keyword rows are also the nearest vectors, in lexical order.
    const semantic = lexical.slice(1).map((hit, index) => ({ id: hit.id, similarity: 0.99 - index / 1000 }));
    const fused = fuseRankings(lexical, semantic);
    expect(ids(fused).slice(0, 2)).toEqual(["row-1", "row-0"]);
    expect(fused[1]?.score).toBeGreaterThan(fused[2]?.score ?? 1);
  });

  it("keeps a phrase match first whatever the vectors say", () => {
    const lexical: LexicalHit[] = [
      { id: "phrase", score: 0.56, phrase: true },
      { id: "words", score: 0.44 },
    ];
    const semantic = [
      { id: "words", similarity: 1 },
      { id: "other", similarity: 0.99 },
    ];
    const fused = fuseRankings(lexical, semantic);
    expect(ids(fused)).toEqual(["phrase", "words", "other"]);
    expect(fused[0]?.score).toBeGreaterThan(fused[1]?.score ?? 1);
  });

  it("holds both seats against random adversarial lists", () => {
    const random = sequence(42);
    for (let round = 0; round < 500; round++) {
      const size = 1 + Math.floor(random() * 30);
      const lexical = Array.from({ length: size }, (_, index) => ({
        id: `m${index}`,
        score: random() * 0.999,
      }));
      const semantic: VectorHit[] = Array.from({ length: 1 + Math.floor(random() * 30) }, () => ({
        id: `m${Math.floor(random() * 60)}`,
        similarity: random() * 2 - 1,
      }));
      const fused = fuseRankings(lexical, semantic);
      const lexicalLeader = lexical.toSorted((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))[0]?.id;
      expect(ids(fused).slice(0, 2)).toContain(lexicalLeader);
      const aboveFloor = semantic.filter((near) => near.similarity > 0.2);
      const best = Math.max(...aboveFloor.map((near) => near.similarity));
      const nearest = aboveFloor
        .filter((near) => near.similarity === best)
        .map((near) => near.id)
        .sort()[0];
      if (nearest !== undefined) expect(ids(fused).slice(0, 2)).toContain(nearest);
      for (let position = 1; position < fused.length; position++) {
        expect(fused[position]?.score).toBeLessThanOrEqual(fused[position - 1]?.score ?? 0);
      }
      for (const row of fused) {
        expect(row.score).toBeGreaterThan(0);
        expect(row.score).toBeLessThan(1);
        expect(Math.round(row.score * 1_000_000) / 1_000_000).toBe(row.score);
      }
    }
  });

  it("is deterministic: input order and duplicates do not change the result, ties go to the smaller id", () => {
    const lexical = [
      { id: "b", score: 0.2 },
      { id: "a", score: 0.2 },
      { id: "c", score: 0.1 },
    ];
    const semantic = [
      { id: "d", similarity: 0.5 },
      { id: "c", similarity: 0.5 },
    ];
    const fused = fuseRankings(lexical, semantic);
    expect(fuseRankings(lexical.toReversed(), [...semantic.toReversed(), semantic[0] as VectorHit])).toEqual(
      fused,
    );
    // "a" leads the lexical list by id; "c" and "d" tie on similarity, so "c" leads the vectors by
    // id. Both are seated, "c" first by fused score (third in words, first in meaning); then "d"
    // (second in meaning) before "b" (second in words: meaning weighs 0.6, words 0.4).
    expect(ids(fused)).toEqual(["c", "a", "d", "b"]);
  });

  it("leaves out neighbours below the floor and ranks lexical alone when no vector is close", () => {
    const fused = fuseRankings(
      [
        { id: "second", score: 0.1 },
        { id: "first", score: 0.3 },
      ],
      [{ id: "unrelated", similarity: 0.15 }],
    );
    // By rank, not score: 0.4 × 6 / (5 + 1) and 0.4 × 6 / (5 + 2).
    expect(fused).toEqual([
      { id: "first", score: 0.4 },
      { id: "second", score: 0.342857 },
    ]);
  });

  it("blends the evidence: words and meaning together outrank either alone", () => {
    const fused = fuseRankings(
      [
        { id: "leader", score: 0.3 },
        { id: "both", score: 0.2 },
        { id: "words", score: 0.2 },
      ],
      [
        { id: "nearest", similarity: 0.9 },
        { id: "both", similarity: 0.6 },
        { id: "close", similarity: 0.6 },
      ],
    );
    // The two leaders are seated first; then "both", second in each list, before "close" and
    // "words", third in one list each.
    expect(ids(fused)).toEqual(["nearest", "leader", "both", "close", "words"]);
    // 0.4 × 6 / (5 + 2) + 0.6 × 6 / (5 + 2).
    expect(fused.find((row) => row.id === "both")?.score).toBe(0.857143);
  });

  it("returns nothing for nothing", () => {
    expect(fuseRankings([], [])).toEqual([]);
  });
});

describe("withQuerySignals", () => {
  const now = new Date("2024-03-13T12:00:00Z");
  const near = (id: string, similarity: number, lead: string, saidAt = "2023-01-10T10:00:00Z") => ({
    id,
    similarity,
    updatedAt: new Date(saidAt),
    lead,
    saidAt: new Date(saidAt),
  });
  const similarities = (query: string, nearest: NearestMemory[]) =>
    withQuerySignals(query, now, nearest).map((row) => row.similarity);

  it("raises the rows the query's person speaks, and only those", () => {
    const nearest = [
      near("caroline", 0.62, "Caroline: I went to the support group yesterday."),
      near("melanie", 0.6, "Melanie: I painted a sunrise last week."),
      near("note", 0.59, "Melanie likes painting sunrises."),
      near("other", 0.58, "Dr. Melanie: not a label this rule reads"),
    ];
    const raised = withQuerySignals("What did Melanie paint?", now, nearest);
    expect(raised.map((row) => row.similarity)).toEqual([0.62, 0.6 + vectorBonuses.namedSpeaker, 0.59, 0.58]);
    // Through fusion, the named speaker's line now leads the vectors' side.
    expect(ids(fuseRankings([], raised, { semanticFloor: 0.3 }))[0]).toBe("melanie");
    expect(ids(fuseRankings([], nearest, { semanticFloor: 0.3 }))[0]).toBe("caroline");
  });

  it("raises the rows said in the time the query names, and a week after it", () => {
    const nearest = [
      near("march", 0.7, "Mel: a canvas", "2023-03-20T10:00:00Z"),
      near("july", 0.6, "Mel: a canvas", "2023-07-14T10:00:00Z"),
      near("early-august", 0.58, "Mel: a canvas", "2023-08-05T10:00:00Z"),
      near("late-august", 0.57, "Mel: a canvas", "2023-08-20T10:00:00Z"),
    ];
    const raised = withQuerySignals("What did they paint in July 2023?", now, nearest);
    expect(raised.map((row) => row.similarity)).toEqual([
      0.7,
      0.6 + vectorBonuses.period,
      0.58 + vectorBonuses.period,
      0.57,
    ]);
    expect(ids(fuseRankings([], raised, { semanticFloor: 0.3 }))[0]).toBe("july");
    expect(similarities("What did they paint in July 2021?", nearest)).toEqual([0.7, 0.6, 0.58, 0.57]);
  });

  it("raises the rows naming a time for a when-question only", () => {
    const nearest = [
      near("undated", 0.7, "Ann: The half marathon was tough, what a race."),
      near("dated", 0.6, "Ann: I ran my first half marathon last Saturday!"),
    ];
    expect(similarities("When did Jon run a half marathon?", nearest)).toEqual([
      0.7,
      0.6 + vectorBonuses.timeNamed,
    ]);
    expect(similarities("How was Jon's half marathon?", nearest)).toEqual([0.7, 0.6]);
  });

  it("changes nothing for a query with none of the signals", () => {
    const nearest = [near("a", 0.7, "Maya: night shift again."), near("b", 0.6, "Jon: weekend plans.")];
    expect(withQuerySignals("what happened at work?", now, nearest)).toEqual(nearest);
    expect(withQuerySignals("What does Priya do?", now, nearest)).toEqual(nearest);
  });
});
