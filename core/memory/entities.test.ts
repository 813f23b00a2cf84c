import { describe, expect, it } from "vitest";
import { extractEntities, sharedEntities, speakerLabelLength, speakerOf } from "./entities.ts";

describe("extractEntities", () => {
  it.each([
    [
      "Charles Darwin is married to Amala Paul.",
      ["charles darwin", "amala paul", "charles", "darwin", "amala", "paul"],
    ],
    ["Amala Paul is a citizen of Belgium.", ["amala paul", "belgium", "amala", "paul"]],
    // A leading "the" is dropped; a lone "The" or "My" is no entity.
    ["The Hague hosts the court. The deployment is done. My cat.", ["hague"]],
    ["We met at The Blue Note in New York.", ["blue note", "new york", "blue", "note", "new", "york"]],
    // Short single words are too ambiguous; acronyms of three letters count.
    ["Al met Bo at AWS.", ["aws"]],
    // Punctuation and line breaks end a name.
    ["Paris, Berlin\nMadrid (Lisbon)", ["paris", "berlin", "madrid", "lisbon"]],
    ["Amala Paul's husband", ["amala paul", "amala", "paul"]],
    ["Straße in München und Zürich", ["straße", "münchen", "zürich"]],
    ["no capitals here at all", []],
  ])("%j", (text, expected) => {
    expect(extractEntities(text)).toEqual(expected);
  });

  it("leaves out a component word that is frequent in the text (more than 3 occurrences)", () => {
    const text = "New York, New Delhi, New Haven and New Jersey are new to me.";
    const entities = extractEntities(text);
    expect(entities).toContain("new york");
    expect(entities).toContain("delhi");
    expect(entities).not.toContain("new");
  });
});

describe("sharedEntities", () => {
  it("counts a shared full name once, not with each of its words", () => {
    const first = extractEntities("Charles Darwin is married to Amala Paul.");
    const second = extractEntities("Amala Paul is a citizen of Belgium.");
    expect(sharedEntities(first, second)).toEqual(["amala paul"]);
  });

  it("matches a single word against a full name's word", () => {
    const first = extractEntities("Darwin wrote a book.");
    const second = extractEntities("Charles Darwin sailed on the Beagle.");
    expect(sharedEntities(first, second)).toEqual(["darwin"]);
  });

  it("is empty for texts about different names", () => {
    expect(sharedEntities(extractEntities("Alice likes Rome."), extractEntities("Bob likes Oslo."))).toEqual(
      [],
    );
  });
});

describe("speakerOf", () => {
  it.each([
    ["Maya: I moved to Porto.", "maya", 6],
    ["  Amala Paul: hello there", "amala paul", 14],
    ["Émile: bonjour", "émile", 7],
    ["maya: lower-case is no speaker label", null, 0],
    ["Note: the deploy failed", "note", 6],
    ["Maya:no space after the colon", null, 0],
    ["The Very Long Speaker Name: too many words", null, 0],
    ["No label here at all", null, 0],
  ])("%j → %j", (content, speaker, length) => {
    expect(speakerOf(content)).toBe(speaker);
    expect(speakerLabelLength(content)).toBe(length);
  });
});
