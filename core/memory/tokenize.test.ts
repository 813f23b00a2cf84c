import { describe, expect, it } from "vitest";
import { fuzzStrings } from "../../test/support/fuzz-strings.ts";
import {
  indexTermCounts,
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
    ["The deployment uses blue-green rollout.", ["deploy", "use", "blue", "green", "rollout"]],
    ["My favorite color is blue. Blue!", ["favorit", "color", "blue"]],
    ["ＦＵＬＬ width ﬁle Ⅻ", ["full", "width", "file", "xii"]],
    // Accents come off, composed or not, and the words are then English words to stem.
    ["Café NAÏVE e\u0301cole", ["cafe", "naiv", "ecol"]],
    ["Tomás García, Zürich, Müllerstraße", ["toma", "garcia", "zurich", "mullerstrass"]],
    // A written date is the ISO date of the same day; a day that does not exist stays as written.
    ["Due March 14, 2026; or 14th of March 2026", ["due", "2026", "03", "14"]],
    ["Feb 30, 2026", ["feb", "30", "2026"]],
    // A letter with ++ or # is a name, but not when a letter or digit runs on ("F#7", "i++x").
    ["I write C++ and C#, not F#7 or i++x", ["write", "cplusplus", "csharp", "not"]],
    ["a b c 1 2 x9 I", ["x9"]],
    ["我喜欢蓝色", ["我喜", "喜欢", "欢蓝", "蓝色"]],
    ["猫 is here", ["猫"]],
    ["iPhone手机 カタカナ", ["iphon", "手机", "カタ", "タカ", "カナ"]],
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
    ['"favorite color"', ["favorit", "color"]],
    // Operators are plain words once lower-cased; "and"/"or" are stopwords, "not" is meaningful.
    ["blue AND green OR NOT red NEAR(x y)", ["blue", "green", "not", "red", "near"]],
    ["rollout* ^deploy col:value -minus +plus", ["rollout", "deploy", "col", "valu", "minus", "plus"]],
    ["'; DROP TABLE memories; --", ["drop", "tabl", "memori"]],
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

describe("terms are stems", () => {
  it("gives the word forms of an English word one term, in the index and in queries", () => {
    const forms = ["research", "researching", "researched", "researches", "Research's"];
    for (const form of forms) {
      expect(indexTokens(form)).toEqual(["research"]);
      expect(queryTokens(form)).toEqual(["research"]);
    }
    const content = indexTokens("Caroline: Researching adoption agencies");
    expect(queryTokens("What did Caroline research?").filter((term) => content.includes(term))).toEqual([
      "carolin",
      "research",
    ]);
    // Forms that share a stem count as one query term.
    expect(queryTokens("painting painted paints")).toEqual(["paint"]);
    expect(queryTokens("deploy deployed deployment deploying")).toEqual(["deploy"]);
    // Porter2's exceptions: different words stay apart.
    expect(queryTokens("news general generous")).toEqual(["news", "general", "generous"]);
    expect(indexTermCounts("Painting: she painted the paints").counts).toEqual(new Map([["paint", 3]]));
  });

  it("leaves words with digits or other scripts as written, accents off", () => {
    expect(indexTokens("x9 2023s café naïve hausaufgaben москва 東京タワー")).toEqual([
      "x9",
      "2023s",
      "cafe",
      "naiv",
      "hausaufgaben",
      "москва",
      "東京",
      "京タ",
      "タワ",
      "ワー",
    ]);
  });

  it("recognises stopwords as written: a word whose stem is a stopword is still indexed", () => {
    // "was" is a stopword; "wasting" is not, and is indexed under its stem.
    expect(indexTokens("was wasting")).toEqual(["wast"]);
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
    ["Café über straße", ["cafe", "uber", "strasse"]],
    ["Москва столица России", ["москва", "столица", "россии"]],
    ["it is what it is", []],
  ])("%j → %j", (text, expected) => {
    expect(meaningfulTokens(text)).toEqual(expected);
  });
});
