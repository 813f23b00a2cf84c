import { describe, expect, it } from "vitest";
import {
  classifyKind,
  type ExtractedMemory,
  extractMemories,
  importanceOf,
  maxMemoryLength,
} from "./ingest.ts";

const ingest = (content: string, overrides: { kind?: "auto" | "note"; documentDate?: Date } = {}) =>
  extractMemories({ content, kind: overrides.kind ?? "auto", documentDate: overrides.documentDate ?? null });
const contents = (memories: ExtractedMemory[]) => memories.map((memory) => memory.content);

describe("extractMemories", () => {
  it("splits on sentence ends and newlines, collapses whitespace and classifies each fragment", () => {
    const document =
      "I prefer   dark mode in every editor.  We will ship the beta soon!\n" +
      "Always run the tests before merging? Summary: the launch went well.\nThe API lives at example.org.";
    const memories = ingest(document);
    expect(memories.map((memory) => [memory.content, memory.kind])).toEqual([
      [document, "fact"],
      ["I prefer dark mode in every editor.", "preference"],
      ["We will ship the beta soon!", "goal"],
      ["Always run the tests before merging?", "instruction"],
      ["Summary: the launch went well.", "summary"],
      ["The API lives at example.org.", "fact"],
    ]);
    expect(memories.every((memory) => memory.sourceContent === memory.content)).toBe(true);
  });

  it("drops fragments with fewer than 3 meaningful tokens and case-insensitive duplicates", () => {
    const memories = ingest("Ok. Thanks! See above.\nThe cache lives in Redis.\nTHE CACHE LIVES IN REDIS.");
    expect(contents(memories)).toEqual(["The cache lives in Redis."]);
  });

  it("keeps at most 50 fragments, after the whole document", () => {
    const sentences = Array.from({ length: 60 }, (_, index) => `Server number ${index} runs build jobs.`);
    const memories = ingest(sentences.join(" "));
    expect(memories).toHaveLength(51);
    expect(memories[1].content).toBe(sentences[0]);
    expect(memories[50].content).toBe(sentences[49]);
  });

  it("keeps a fragment past 64 Ki characters as more memories, cut at spaces, losing nothing", () => {
    const words = Array.from({ length: 30_000 }, (_, index) => `word${index}`);
    const memories = ingest(words.join(" "));
    expect(memories.length).toBeGreaterThan(1);
    for (const memory of memories) expect(memory.content.length).toBeLessThanOrEqual(maxMemoryLength);
    expect(memories.map((memory) => memory.content).join(" ")).toBe(words.join(" "));
  });

  it("cuts a run without spaces at 64 Ki characters, never between the halves of a surrogate pair", () => {
    const long = `${"x".repeat(maxMemoryLength - 1)}😀${"y".repeat(100)} tail end here`;
    const memories = ingest(long);
    expect(memories[0].content).toBe("x".repeat(maxMemoryLength - 1));
    expect(memories.map((memory) => memory.content).join("")).toBe(long);
  });

  it("ends sentences at the full stops of Chinese and Japanese, which no space follows", () => {
    const memories = ingest("我叫王小明今年三十岁。我住在北京的海淀区里。我每天早上喝乌龙茶！").map(
      (memory) => memory.content,
    );
    expect(memories).toContain("我叫王小明今年三十岁。");
    expect(memories).toContain("我住在北京的海淀区里。");
    expect(memories).toContain("我每天早上喝乌龙茶！");
  });

  it("adds the whole document only when it has more than one fragment and fits in 8 KiB (bytes)", () => {
    const shortDocument = "The cache lives in Redis. The queue lives in RabbitMQ.";
    expect(contents(ingest(shortDocument))[0]).toBe(shortDocument);
    // Under 8192 characters but over 8192 UTF-8 bytes: too big to keep whole.
    const wide = `${"Größe ".repeat(600)}is the German word. ${"Äpfel ".repeat(600)}are sweet apples.`;
    expect(wide.length).toBeLessThan(8192);
    const memories = ingest(wide);
    expect(memories).toHaveLength(2);
    expect(contents(memories)).not.toContain(wide);
  });

  it("gives the whole document the requested kind (or fact), the union of dates and the highest importance", () => {
    const memories = ingest(
      "The product launch is on 2024-05-01. The review is critical and on May 3, 2024. I like to cook pasta.",
      {
        kind: "note",
      },
    );
    expect(memories.map((memory) => memory.kind)).toEqual(["note", "note", "note", "note"]);
    expect(memories[0].eventDates).toEqual(["2024-05-01", "2024-05-03"]);
    expect(memories.map((memory) => memory.importance)).toEqual([0.95, 0.75, 0.95, 0.5]);
  });

  it("falls back to the whole trimmed text when no fragment qualifies", () => {
    expect(ingest("  ok thanks!  ")).toEqual([
      { content: "ok thanks!", kind: "fact", eventDates: [], importance: 0.5, sourceContent: "ok thanks!" },
    ]);
    expect(ingest("I prefer tea")).toEqual([
      {
        content: "I prefer tea",
        kind: "preference",
        eventDates: [],
        importance: 0.5,
        sourceContent: "I prefer tea",
      },
    ]);
  });

  it("returns nothing for whitespace only", () => {
    expect(ingest(" \n\t ")).toEqual([]);
  });

  it("does not cut after abbreviations and initials", () => {
    expect(
      contents(ingest("Dr. Smith moved the review to Friday. J. R. R. Tolkien wrote many books.")),
    ).toEqual([
      "Dr. Smith moved the review to Friday. J. R. R. Tolkien wrote many books.",
      "Dr. Smith moved the review to Friday.",
      "J. R. R. Tolkien wrote many books.",
    ]);
  });

  it("resolves relative dates against the document date", () => {
    const [memory] = ingest("We deployed the new billing service yesterday.", {
      documentDate: new Date("2024-03-13T09:00:00Z"),
    });
    expect(memory.eventDates).toEqual(["2024-03-12"]);
    expect(memory.importance).toBe(0.75);
  });

  describe("session transcripts", () => {
    const transcript = [
      "user: I moved to Berlin in spring. I work at Acme as an engineer.",
      "assistant: ok thanks",
      "assistant: Noted, you work at Acme in Berlin.",
      "User: My favorite color is blue!",
    ].join("\n");

    it("keeps each turn's speaker in front of its sentences and out of the meaningful count", () => {
      const memories = ingest(transcript);
      expect(contents(memories)).toEqual([
        transcript,
        "user: I moved to Berlin in spring.",
        "user: I work at Acme as an engineer.",
        // "assistant: ok thanks" has only two meaningful tokens once the speaker is left out.
        "assistant: Noted, you work at Acme in Berlin.",
        "User: My favorite color is blue!",
      ]);
      expect(memories.at(-1)?.kind).toBe("preference");
    });

    it("does not classify by the speaker's name", () => {
      const memories = ingest("Will: The office is in Lisbon now.\nAnna: The team meets on Mondays.");
      expect(memories.slice(1).map((memory) => memory.kind)).toEqual(["fact", "fact"]);
    });

    it("treats a single label line as ordinary text", () => {
      expect(ingest("Summary: the quarter closed with record sales.")[0].kind).toBe("summary");
    });
  });
});

describe("classifyKind", () => {
  it.each([
    ["My favourite editor is vim", "preference"],
    ["I dislike long meetings", "preference"],
    ["I would like to learn Rust", "preference"],
    // Rules are tried in order: preference, goal, instruction, summary.
    ["I prefer to always plan ahead", "preference"],
    ["We will never deploy on Fridays", "goal"],
    ["I need to renew my passport", "goal"],
    ["Our goal is zero downtime", "goal"],
    ["Never push to main", "instruction"],
    ["Don’t commit secrets", "instruction"],
    ["You must sign commits", "instruction"],
    ["In summary, sales grew", "summary"],
    ["Overall the migration went fine", "summary"],
    ["The sky is blue", "fact"],
    ["Willow trees grow near water", "fact"],
  ])("%j → %s", (text, kind) => {
    expect(classifyKind(text)).toBe(kind);
  });
});

describe("importanceOf", () => {
  it.each([
    ["plain text", [], 0.5],
    ["this is important", [], 0.7],
    ["my favorite day", ["2024-01-01"], 0.95],
    ["a dated note", ["2024-01-01"], 0.75],
  ])("%j with %j → %d", (text, dates, expected) => {
    expect(importanceOf(text, dates)).toBe(expected);
  });
});
