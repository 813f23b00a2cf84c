import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { fuzzStrings } from "./fuzz-strings.test-helper.ts";
import {
  ftsDocument,
  ftsMatchQuery,
  ftsTerm,
  indexTokens,
  maxIndexTokens,
  maxQueryTokens,
  maxTokenLength,
  meaningfulTokens,
  queryTokens,
  textTerms,
} from "./tokenize.ts";

const tokenShape = /^[\p{L}\p{N}\p{M}]+$/u;

describe("indexTokens", () => {
  it.each([
    ["The deployment uses blue-green rollout.", ["deployment", "uses", "blue", "green", "rollout"]],
    ["My favorite color is blue. Blue!", ["favorite", "color", "blue"]],
    ["ＦＵＬＬ width ﬁle Ⅻ", ["full", "width", "file", "xii"]],
    ["Café NAÏVE e\u0301cole", ["café", "naïve", "école"]],
    ["a b c 1 2 x9 I", ["x9"]],
    ["我喜欢蓝色", ["我喜", "喜欢", "欢蓝", "蓝色"]],
    ["猫 is here", ["猫"]],
    ["iPhone手机 カタカナ", ["iphone", "手机", "カタ", "タカ", "カナ"]],
    ["हिन्दी भाषा", ["हिन्दी", "भाषा"]],
    ["user's don't", ["user"]],
    ["", []],
    ["!!! ... ???", []],
  ])("%j → %j", (text, expected) => {
    expect(indexTokens(text)).toEqual(expected);
  });

  it("cuts tokens to maxTokenLength code points and keeps the first maxIndexTokens distinct ones", () => {
    const long = "𝔞".repeat(100); // astral letters: the cut counts code points, not UTF-16 units
    const [token] = indexTokens(long);
    expect(Array.from(token)).toHaveLength(maxTokenLength);
    const many = Array.from({ length: 700 }, (_, index) => `word${index}`).join(" ");
    const tokens = indexTokens(many);
    expect(tokens).toHaveLength(maxIndexTokens);
    expect(tokens[0]).toBe("word0");
    expect(tokens.at(-1)).toBe(`word${maxIndexTokens - 1}`);
  });
});

describe("queryTokens", () => {
  it.each([
    ['"favorite color"', ["favorite", "color"]],
    // Operators are plain words once lower-cased; "and"/"or" are stopwords, "not" is meaningful.
    ["blue AND green OR NOT red NEAR(x y)", ["blue", "green", "not", "red", "near"]],
    ["rollout* ^deploy col:value -minus +plus", ["rollout", "deploy", "col", "value", "minus", "plus"]],
    ["'; DROP TABLE memories; --", ["drop", "table", "memories"]],
    ["😀 🇩🇪 ??? \u200b", []],
    ["the a is of", []],
    ["Blue blue BLUE", ["blue"]],
  ])("%j → %j", (query, expected) => {
    expect(queryTokens(query)).toEqual(expected);
  });

  it("caps a long query at maxQueryTokens", () => {
    const query = Array.from({ length: 80 }, (_, index) => `term${index}`).join(" ");
    expect(queryTokens(query)).toHaveLength(maxQueryTokens);
  });

  it("gives a valid, distinct, bounded list for 400 hostile random strings", () => {
    for (const query of fuzzStrings(400, 400)) {
      const tokens = queryTokens(query);
      expect(tokens.length).toBeLessThanOrEqual(maxQueryTokens);
      expect(new Set(tokens).size).toBe(tokens.length);
      for (const token of tokens) {
        expect(token).toMatch(tokenShape);
        expect(Array.from(token).length).toBeLessThanOrEqual(maxTokenLength);
      }
    }
  });
});

describe("textTerms", () => {
  it("keeps stopwords and one-character words in reading order", () => {
    expect(textTerms("My favorite color is a blue one.")).toEqual([
      "my",
      "favorite",
      "color",
      "is",
      "a",
      "blue",
      "one",
    ]);
  });
});

describe("meaningfulTokens", () => {
  it.each([
    ["The deployment uses blue-green rollout.", ["deployment", "uses", "blue-green", "rollout"]],
    ["My favorite color is now green.", ["favorite", "color", "now", "green"]],
    ["Don’t do that, user's rollout- x 7 42", ["don't", "user's", "rollout", "42"]],
    ["Café über straße", ["café", "über", "straße"]],
    ["Москва столица России", ["москва", "столица", "россии"]],
    ["it is what it is", []],
  ])("%j → %j", (text, expected) => {
    expect(meaningfulTokens(text)).toEqual(expected);
  });
});

describe("FTS5 spelling", () => {
  const texts = [
    "The deployment uses blue-green rollout.",
    "हिन्दी भाषा और हीनदि", // vowel signs FTS5 treats as separators
    "我喜欢蓝色 and 蓝色的天空",
    "zzz sleepy zz9 café école",
    ...fuzzStrings(60, 200, 7),
  ];

  function createIndex(): DatabaseSync {
    const database = new DatabaseSync(":memory:");
    database.exec(
      "CREATE VIRTUAL TABLE memory_index USING fts5(tokens, tokenize = 'unicode61 remove_diacritics 0')",
    );
    const insert = database.prepare("INSERT INTO memory_index(rowid, tokens) VALUES (?, ?)");
    texts.forEach((text, index) => {
      insert.run(index + 1, ftsDocument(indexTokens(text)));
    });
    return database;
  }

  it("matches exactly the rows whose index tokens contain the token (same as a text[] lookup)", () => {
    const database = createIndex();
    const match = database.prepare(
      "SELECT rowid FROM memory_index WHERE memory_index MATCH ? ORDER BY rowid",
    );
    const tokenSets = texts.map((text) => new Set(indexTokens(text)));
    for (const token of new Set(tokenSets.flatMap((tokens) => [...tokens]))) {
      const expected = tokenSets.flatMap((tokens, index) => (tokens.has(token) ? [index + 1] : []));
      const rows = match.all(ftsMatchQuery([token])).map((row) => Number(row.rowid));
      expect(rows, token).toEqual(expected);
    }
  });

  it("accepts every hostile query's match expression", () => {
    const database = createIndex();
    const match = database.prepare("SELECT count(*) AS hits FROM memory_index WHERE memory_index MATCH ?");
    for (const query of fuzzStrings(300, 400, 11)) {
      const tokens = queryTokens(query);
      if (tokens.length > 0) expect(() => match.get(ftsMatchQuery(tokens))).not.toThrow();
    }
  });

  it("writes plain tokens as they are and others one-to-one as zz-hex", () => {
    expect(ftsTerm("rollout")).toBe("rollout");
    expect(ftsTerm("café")).toBe("zz636166c3a9");
    expect(ftsTerm("zz")).toBe("zz7a7a");
    expect(ftsTerm("zz7a7a")).not.toBe(ftsTerm("zz"));
    expect(ftsMatchQuery([])).toBe("");
  });
});
