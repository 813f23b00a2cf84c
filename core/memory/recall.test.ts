import { describe, expect, it } from "vitest";
import { seededRandom } from "../../test/support/seeded-random.ts";
import type { Posting } from "../ports/memory-store.ts";
import { rankLexical } from "./recall.ts";

/** `rows` rows over three terms with few distinct frequencies and lengths: many exact ties. */
function postings(rows: number, seed: number): Posting[] {
  const random = seededRandom(seed);
  const list: Posting[] = [];
  for (let row = 0; row < rows; row++) {
    const memoryId = `m${Math.floor(random() * 1e9)
      .toString(16)
      .padStart(8, "0")}-${row}`;
    const length = 3 + Math.floor(random() * 4);
    for (const term of ["alpha", "beta", "gamma"]) {
      if (random() < 0.5)
        list.push({ term, memoryId, scope: "default", frequency: 1 + Math.floor(random() * 2), length });
    }
  }
  return list;
}

const statistics = {
  documentFrequency: new Map([
    ["alpha", 5000],
    ["beta", 2500],
    ["gamma", 900],
  ]),
  totalDocuments: 20_000,
  averageLength: 4.5,
  version: 1,
};

describe("rankLexical", () => {
  it("read row by row, gives the rows of a full sort in the same order (best first, ties by id)", () => {
    for (const rows of [10, 300, 3_000]) {
      const list = postings(rows, rows);
      const terms = ["alpha", "beta", "gamma"];
      const full = rankLexical(list, statistics, terms).all();
      const stepwise = rankLexical(list, statistics, terms);
      const read = Array.from({ length: stepwise.length }, (_, index) => stepwise.at(index));
      expect(read).toEqual(full);
      // Best first, ties by the id's byte order.
      for (let index = 1; index < full.length; index++) {
        const [previousId, previous] = full[index - 1];
        const [id, score] = full[index];
        expect(previous > score || (previous === score && previousId < id)).toBe(true);
      }
    }
  });

  it("reads past the first sorted rows in the order a full sort gives", () => {
    const list = postings(3_000, 7);
    const terms = ["alpha", "beta", "gamma"];
    const full = rankLexical(list, statistics, terms).all();
    const ranking = rankLexical(list, statistics, terms);
    // A reader that looks at the best row, then jumps far down, then back.
    expect(ranking.at(0)).toEqual(full[0]);
    expect(ranking.at(1_500)).toEqual(full[1_500]);
    expect(ranking.at(700)).toEqual(full[700]);
    expect(ranking.at(full.length - 1)).toEqual(full.at(-1));
  });
});
