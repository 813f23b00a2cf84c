import { describe, expect, it } from "vitest";
import { fuzzStrings } from "../../test/support/fuzz-strings.ts";
import { rankLexical } from "./recall.ts";
import {
  analysisCacheBytesKept,
  candidateStatistics,
  phraseMatches,
  type ScoredMemory,
  type ScoringCandidate,
  scoreCandidates,
  specificity,
  specificityTerms,
} from "./scoring.ts";
import { indexTermCounts, indexTokens, queryTokens } from "./tokenize.ts";

const now = new Date("2024-06-01T12:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);

function row(id: string, content: string, overrides: Partial<ScoringCandidate> = {}): ScoringCandidate {
  return {
    id,
    content,
    importance: 0.5,
    updatedAt: daysAgo(1),
    supersededAt: null,
    supersededById: null,
    accessCount: 0,
    ...overrides,
  };
}

/** Scores the way a store does: the collection's document frequencies, the matching rows (plus
 * linked ones) as candidates, superseded rows only when the query asks for history. */
function search(
  query: string,
  collection: ScoringCandidate[],
  linked: ScoringCandidate[] = [],
): ScoredMemory[] {
  const tokens = queryTokens(query);
  // Each entry analysed once per search (a hostile query has hundreds of tokens).
  const analysed = collection.map((entry) => ({
    entry,
    terms: new Set(indexTokens(entry.content)),
    ...indexTermCounts(entry.content),
  }));
  const documentFrequency = new Map(
    tokens.map((token) => [token, analysed.filter(({ terms }) => terms.has(token)).length]),
  );
  const postings = analysed.flatMap(({ entry, counts, length }) =>
    tokens.flatMap((term) =>
      counts.has(term)
        ? [{ term, memoryId: entry.id, scope: "default", frequency: counts.get(term) ?? 0, length }]
        : [],
    ),
  );
  const totalLength = analysed.reduce((sum, { length }) => sum + length, 0);
  const statistics = {
    documentFrequency,
    totalDocuments: collection.length,
    averageLength: totalLength / collection.length,
    version: 0,
  };
  const lexical = new Map(rankLexical(postings, statistics, tokens).all());
  const matching = collection.filter((entry) => lexical.has(entry.id));
  return scoreCandidates({ query, now, candidates: [...matching, ...linked], lexical });
}

const ids = (results: ScoredMemory[]) => results.map((result) => result.id);

describe("scoreCandidates", () => {
  it("ranks an exact phrase match first with a score above 0, even against more term hits", () => {
    const collection = [
      row("repeats", "Deployment notes: deployment of blue, green green deployment, deployment logs."),
      row("phrase", "Yesterday we discussed the blue green deployment with the whole platform team."),
      row("partial", "The green button starts a deployment."),
      row("unrelated", "Lunch is at noon."),
    ];
    const results = search("blue green deployment", collection);
    expect(ids(results)).toEqual(["phrase", "repeats", "partial"]);
    expect(results[0].score).toBeGreaterThan(0.5);
  });

  it("ranks a near phrase (stopwords aside) above scattered matches", () => {
    const collection = [
      row("scattered", "Blue is a color; my favorite snack is popcorn, favorite color of the logo is red."),
      row("near", "My favorite color is blue."),
    ];
    expect(phraseMatches("favorite color blue", "My favorite color is blue.")).toBe("near");
    expect(ids(search("favorite color blue", collection))).toEqual(["near", "scattered"]);
  });

  it("excludes a superseded row for a current query and returns it first for a history query", () => {
    const old = row("old", "My favorite color is blue.", {
      updatedAt: daysAgo(20),
      supersededAt: daysAgo(2),
      supersededById: "new",
    });
    const current = row("new", "My favorite color is now green.", { updatedAt: daysAgo(2) });
    const other = row("other", "The office walls are green.");
    const collection = [old, current, other];
    expect(ids(search("favorite color", collection))).toEqual(["new"]);
    expect(ids(search("What was my favorite color before green?", collection))).toEqual([
      "old",
      "new",
      "other",
    ]);
  });

  it("ranks a superseded row by its successor's match for a history query", () => {
    // "green" is rare and matches only the successor; "favorite color" is everywhere.
    const others = Array.from({ length: 8 }, (_, index) =>
      row(`team-${index}`, `Team ${index} has a favorite color.`),
    );
    const old = row("old", "My favorite color is blue.", { supersededAt: daysAgo(2), supersededById: "new" });
    const current = row("new", "My favorite color is green now, and green it stays.");
    const results = search("What was my favorite color before green?", [...others, old, current]);
    expect(ids(results).slice(0, 2)).toEqual(["old", "new"]);
  });

  it("ranks a superseded row above its successor for a history query even without the link", () => {
    const old = row("old", "The deployment uses blue-green rollout.", { supersededAt: daysAgo(1) });
    const current = row("new", "The deployment uses canary rollout.");
    expect(ids(search("What was the previous deployment rollout?", [old, current]))).toEqual(["old", "new"]);
  });

  it("returns nothing when nothing is relevant", () => {
    const collection = [row("a", "The cache lives in Redis."), row("b", "Lunch is at noon.")];
    expect(search("kubernetes cluster", collection)).toEqual([]);
    expect(search("the is of", collection)).toEqual([]);
    expect(search("", collection)).toEqual([]);
  });

  it("includes a linked row without a lexical match only when it carries a relation boost", () => {
    const collection = [row("hit", "Amala Paul lives in Belgium."), row("neighbour", "She married in 2019.")];
    const linked = row("neighbour", "She married in 2019.", { relationBoost: 0.5 });
    expect(ids(search("Amala Paul", collection))).toEqual(["hit"]);
    const results = search("Amala Paul", collection, [linked]);
    expect(ids(results)).toEqual(["hit", "neighbour"]);
    expect(results[1].score).toBeGreaterThan(0);
  });

  it("ranks a row naming the query's entity above one that only shares its words", () => {
    const collection = [
      row("words", "the paul and amala paul fund pays for amala paul street."),
      row("entity", "Amala Paul lives in Brussels."),
    ];
    expect(ids(search("Where does Amala Paul live?", collection))).toEqual(["entity", "words"]);
  });

  it("breaks ties by newer updatedAt, then by smaller id (code-unit order)", () => {
    const tied = [
      row("b", "alpha beta"),
      row("a", "alpha gamma"),
      row("B", "alpha delta"),
      row("newer", "alpha epsilon", { updatedAt: daysAgo(1) }),
    ].map((entry) => (entry.id === "newer" ? entry : { ...entry, updatedAt: daysAgo(3) }));
    const results = search("alpha", tied);
    expect(new Set(results.slice(1).map((result) => result.score)).size).toBe(1);
    expect(ids(results)).toEqual(["newer", "B", "a", "b"]);
  });

  it("demotes a near-duplicate below distinct rows, but never a row and its successor", () => {
    const long = "canary rollout across regions alpha beta gamma delta epsilon zeta eta theta iota kappa";
    // The longer of two copies says a little more and ranks first; the other is the copy.
    const collection = [
      row("original", `The deployment uses ${long} lambda.`),
      row("copy", `The deployment uses ${long}.`),
      row("distinct", "Canary rollout is our default for the billing service."),
    ];
    const results = search("canary rollout", collection);
    const score = (id: string) => results.find((result) => result.id === id)?.score ?? 0;
    expect(ids(results).at(-1)).toBe("copy");
    expect(score("copy")).toBeLessThan(score("original") * 0.6);

    const replaced = row("replaced", `The deployment uses ${long}.`, {
      supersededAt: daysAgo(1),
      supersededById: "current",
    });
    const current = row("current", `The deployment uses ${long} lambda.`);
    const history = search("what was the canary rollout", [replaced, current]);
    expect(ids(history)).toEqual(["replaced", "current"]);
    expect(history[1].score).toBeGreaterThan(history[0].score * 0.6);
  });

  it("gives the same ids, order and scores whatever order the candidates arrive in", () => {
    const collection = Array.from({ length: 40 }, (_, index) =>
      row(`id-${index}`, `Service ${index % 7} uses rollout plan ${index % 3} with canary ${index % 5}.`, {
        updatedAt: daysAgo(index % 4),
        importance: (index % 10) / 10,
        accessCount: index,
      }),
    );
    const expected = search("canary rollout plan 2", collection);
    expect(expected.length).toBe(40);
    const shuffled = [...collection]
      .reverse()
      .sort((first, second) => (first.content.length % 3) - (second.content.length % 3));
    expect(search("canary rollout plan 2", shuffled)).toEqual(expected);
  });

  it("keeps every score below 1 and above 0 even when every signal is at its maximum", () => {
    const best = row("best", `Maya: ${"when did Maya say blue yesterday ".repeat(200)}`, {
      importance: 1,
      accessCount: 10_000,
      relationBoost: 1,
      updatedAt: daysAgo(-5),
      createdAt: daysAgo(1),
      eventDates: ["2024-05-31"],
    });
    const [result] = scoreCandidates({
      query: "When did Maya say blue yesterday?",
      now,
      candidates: [best],
      lexical: new Map([["best", 1]]),
      specificity: new Map([["best", 1]]),
    });
    expect(result.score).toBeGreaterThan(0.95);
    expect(result.score).toBeLessThan(1);
    expect(ids(search("blue", [best], [best]))).toEqual(["best"]);
  });

  it("ranks the more specific of two rows matching the same words first", () => {
    const smallTalk = row("small-talk", "Maya: Work has been so busy lately.", { updatedAt: daysAgo(1) });
    const fact = row("fact", "Maya: Another night shift in the ER, twelve hours of triage.", {
      updatedAt: daysAgo(300),
    });
    const input = {
      query: "What does Maya do?",
      now,
      candidates: [smallTalk, fact],
      lexical: new Map([
        ["small-talk", 0.2],
        ["fact", 0.2],
      ]),
    };
    expect(ids(scoreCandidates(input))).toEqual(["small-talk", "fact"]);
    const specific = new Map([
      ["small-talk", 0.2],
      ["fact", 0.8],
    ]);
    expect(ids(scoreCandidates({ ...input, specificity: specific }))).toEqual(["fact", "small-talk"]);
  });

  it("answers a when-question with the row that names a time before one that does not", () => {
    const collection = [
      row("undated", "I ran a half marathon with my sister, what a race."),
      row("dated", "I ran my first half marathon last Saturday!", { updatedAt: daysAgo(40) }),
    ];
    expect(ids(search("When did I run a half marathon?", collection))).toEqual(["dated", "undated"]);
    expect(ids(search("Who ran a half marathon?", collection))[0]).toBe("undated");
  });

  it("ranks the rows said in the time the query names, or about it, above the others", () => {
    const collection = [
      row("may", "Maria: I started aerial yoga classes, so fun.", {
        createdAt: new Date("2023-05-09T10:00:00Z"),
      }),
      row("december", "Maria: Trying a new workout class this week.", {
        createdAt: new Date("2024-01-20T10:00:00Z"),
        documentDate: new Date("2023-12-04T10:00:00Z"),
      }),
      row("told-later", "Maria: Last week's workout class was brutal.", {
        createdAt: new Date("2024-01-05T10:00:00Z"),
      }),
      row("about", "Maria: The new workout class schedule is out.", {
        createdAt: new Date("2024-03-01T10:00:00Z"),
        eventDates: ["2023-12-18"],
      }),
    ];
    const december = ids(search("What workout class did Maria start in December 2023?", collection));
    expect(december.slice(0, 3).toSorted()).toEqual(["about", "december", "told-later"]);
    expect(december[3]).toBe("may");
    expect(ids(search("What workout class did Maria start in May 2023?", collection))[0]).toBe("may");
    // "may" the verb names no month.
    expect(search("What workout class may Maria start?", collection)).toEqual(
      search("What workout class might Maria start?", collection),
    );
  });

  it("ranks a transcript line spoken by the person the query names above one addressed to them", () => {
    const collection = [
      row("addressed", "Jon: Maya, how was the pottery class?", { updatedAt: daysAgo(1) }),
      row("spoken", "Maya: The pottery class is my favourite hour of the week.", { updatedAt: daysAgo(9) }),
    ];
    expect(ids(search("What does Maya think of the pottery class?", collection))).toEqual([
      "spoken",
      "addressed",
    ]);
  });

  it("never throws and returns sorted scores in [0, 1) with 6 decimals for hostile queries", () => {
    const contents = fuzzStrings(60, 300, 99);
    const collection = contents.map((content, index) =>
      row(`row-${String(index).padStart(2, "0")}`, content, {
        updatedAt: daysAgo(index % 9),
        supersededAt: index % 5 === 0 ? daysAgo(1) : null,
        supersededById: index % 5 === 0 ? `row-${String(index + 1).padStart(2, "0")}` : null,
        relationBoost: index % 11 === 0 ? 0.3 : undefined,
      }),
    );
    for (const query of [...fuzzStrings(300, 400, 5), ...contents.slice(0, 20)]) {
      const results = search(
        query,
        collection,
        collection.filter((entry) => entry.relationBoost !== undefined),
      );
      expect(new Set(ids(results)).size).toBe(results.length);
      for (const [index, result] of results.entries()) {
        expect(result.score).toBeGreaterThanOrEqual(0);
        expect(result.score).toBeLessThan(1);
        expect(Math.round(result.score * 1_000_000) / 1_000_000).toBe(result.score);
        if (index > 0) expect(results[index - 1].score).toBeGreaterThanOrEqual(result.score);
      }
    }
  });
});

describe("specificity", () => {
  const statistics = {
    documentFrequency: new Map([
      ["work", 500],
      ["busy", 400],
      ["lately", 300],
      ["triage", 2],
      ["shift", 10],
      ["maya", 600],
    ]),
    totalDocuments: 1000,
    averageLength: 8,
  };

  it("is higher for rare words than for words every memory uses, and ignores the speaker label", () => {
    const smallTalk = specificity("Maya: Work busy lately.", statistics);
    const fact = specificity("Maya: Shift triage.", statistics);
    expect(smallTalk).toBeGreaterThanOrEqual(0);
    expect(fact).toBeLessThanOrEqual(1);
    expect(fact).toBeGreaterThan(smallTalk);
    expect(specificity("Work busy lately.", statistics)).toBe(smallTalk);
    expect(specificityTerms("Maya: Work busy lately.")).toEqual(["work", "busy", "lately"]);
  });

  it("counts words among the rows a search ranks, after their speaker labels", () => {
    const rows = ["Maya: work busy", "Jon: work busy lately", "Maya: night shift triage"];
    const counted = candidateStatistics(rows);
    expect(counted.totalDocuments).toBe(3);
    expect([...counted.documentFrequency]).toEqual([
      ["work", 2],
      ["busy", 2],
      ["lately", 1],
      ["night", 1],
      ["shift", 1],
      ["triage", 1],
    ]);
    expect(specificity(rows[2], counted)).toBe(1);
    expect(specificity(rows[0], counted)).toBeLessThan(specificity(rows[1], counted));
  });

  it("counts a word the index does not hold as held by one row, and is 0 for no words", () => {
    expect(specificity("zyzzyva", statistics)).toBe(1);
    expect(specificity("the of and", statistics)).toBe(0);
    expect(specificity("", { ...statistics, totalDocuments: 0 })).toBe(0);
  });
});

describe("phraseMatches", () => {
  it.each([
    ["favorite color", "My Favorite   Color is blue", "exact"],
    ["ＦＡＶＯＲＩＴＥ color", "my favorite color", "exact"],
    ["favorite blue", "my favorite color is blue", null],
    ["what is the favorite color", "The favorite color: blue", "near"],
    ["蓝色", "我喜欢蓝色", "exact"],
    ["the", "the cat", null],
    ["", "anything", null],
  ])("%j in %j → %s", (query, content, expected) => {
    expect(phraseMatches(query, content)).toBe(expected);
  });
});

// Regression (issue 45): analyses were counted at four bytes a character of content, so 64 KiB
// of Han characters (every pair of them a word, in strings of two bytes a character) took 712 KB
// of heap counted as 262 KB, and hostile text held three times the cache's bound.
describe("the content-analysis cache", () => {
  it("counts a 64 KiB text whose every pair of characters is a word at no less than its words take", () => {
    let state = 7;
    const han = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return String.fromCharCode(0x4e00 + (state % 2000));
    };
    const content = Array.from({ length: 65_536 }, han).join("");
    const before = analysisCacheBytesKept();
    expect(phraseMatches("蓝色", content)).not.toBe("near");
    // 65,535 two-character words, each with a space, at two bytes a character: 393 KB joined,
    // and as much again for the words without stopwords.
    expect(analysisCacheBytesKept() - before).toBeGreaterThan(2 * 2 * 65_535 * 3);
  });
});
