import { describe, expect, it } from "vitest";
import { fuzzStrings } from "../../test/support/fuzz-strings.ts";
import { seededRandom } from "../../test/support/seeded-random.ts";
import {
  classifyRelation,
  detectProfileRelation,
  detectRelation,
  jaccardSimilarity,
  mayRelate,
  relationProfile,
} from "./relations.ts";

describe("detectRelation", () => {
  it.each([
    // The examples of docs/memory.md#relations.
    ["The deployment uses canary rollout.", "The deployment uses blue-green rollout.", "updates", 0.6],
    ["My favorite color is now green.", "My favorite color is blue.", "updates", 0.4],
    ["Amala Paul is a citizen of Belgium.", "Charles Darwin is married to Amala Paul.", "related", 0.5],
    ["Charles Darwin is married to Amala Paul.", "Amala Paul is a citizen of Belgium.", "related", 0.5],
    // Update markers.
    [
      "The meeting was rescheduled to Friday afternoon.",
      "The meeting is on Thursday afternoon.",
      "updates",
      0.4,
    ],
    ["We no longer deploy with Jenkins pipelines.", "We deploy with Jenkins pipelines.", "updates", 0.6],
    // Same subject, new value, no marker.
    [
      "The staging database runs PostgreSQL 16.",
      "The staging database runs PostgreSQL 15.",
      "updates",
      0.6667,
    ],
    // More detail about the same thing extends it; a subset is never an update.
    [
      "The deployment uses canary rollout in three regions.",
      "The deployment uses canary rollout.",
      "extends",
      0.6667,
    ],
    [
      "The deployment uses canary rollout.",
      "The deployment uses canary rollout in three regions.",
      "related",
      0.6667,
    ],
    // Different named subjects with the same shape: related through the shared name, not an update.
    ["Project Zeus team lead is Maria Lopez.", "Project Apollo team lead is Maria Lopez.", "related", 0.7143],
    ["Alice now works at Google.", "Bob works at Google.", "related", 0.5],
    // A marker does not make a statement about another subject an update.
    ["The api now uses oauth tokens.", "The dashboard uses oauth tokens.", "extends", 0.5],
    // A statement that adds to another ("also", "too") leaves it current.
    [
      "The export API now also supports CSV output.",
      "The export API supports JSON output.",
      "extends",
      0.5714,
    ],
    ["The staging database runs Redis too.", "The staging database runs PostgreSQL 15.", "related", 0.5],
  ])("%j → %j", (newer, older, type, confidence) => {
    expect(detectRelation({ content: newer }, { content: older })).toEqual({ type, confidence });
  });

  it.each([
    ["The weather is sunny today.", "I bought three apples at the market."],
    ["alice prefers tea in the morning.", "bob drives a red truck to work."],
    ["", ""],
    ["!!!", "???"],
  ])("%j and %j are unrelated", (newer, older) => {
    expect(detectRelation({ content: newer }, { content: older })).toBeNull();
  });

  it("does not call a repeated statement an update of itself", () => {
    const text = "My favorite color is now green.";
    expect(detectRelation({ content: text }, { content: text })?.type).toBe("related");
  });

  it("keeps confidence within 0–1 with 4 decimal places", () => {
    const relation = detectRelation(
      { content: "Anna Berg, Carl Dahl, Eva Fors, Gus Holm and Ida Jung met in Oslo." },
      { content: "Anna Berg, Carl Dahl, Eva Fors, Gus Holm and Ida Jung live in Bergen." },
    );
    expect(relation?.confidence).toBe(1);
  });
});

describe("jaccardSimilarity", () => {
  it.each([
    [["a", "b"], ["b", "c"], 1 / 3],
    [["a"], ["a"], 1],
    [[], [], 0],
  ])("%j, %j → %d", (first, second, expected) => {
    expect(jaccardSimilarity(new Set(first), new Set(second))).toBeCloseTo(expected, 10);
  });
});

describe("mayRelate, the pass over unrelated pairs", () => {
  // Statements about a few subjects and names with varying values, so that many pairs relate in
  // every way (updates, extends, related by a shared name, at and around each threshold), among
  // bags of words and hostile strings.
  const random = seededRandom(20261128);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const subjects = ["The deployment", "My favorite color", "The staging database", "Our standup", "The API"];
  const verbs = ["uses", "is", "is now", "runs", "moved to", "no longer uses"];
  const values = [
    "canary rollout",
    "blue",
    "green",
    "PostgreSQL 15",
    "PostgreSQL 16",
    "Friday",
    "OAuth tokens",
  ];
  const names = ["Amala Paul", "Charles Darwin", "Maria Lopez", "Oslo", "Project Zeus", "Belgium"];
  const words = ["garden", "kettle", "river", "lantern", "harbor", "violin", "pepper", "canvas", "meadow"];
  const texts = [
    // Similarity exactly 1/4 (a, b, c against a, d) and just under it (1/5).
    "alpha bravo charlie",
    "alpha delta",
    "alpha bravo charlie echo",
    ...Array.from({ length: 120 }, (_, index) => {
      if (index % 3 === 0) return `${pick(subjects)} ${pick(verbs)} ${pick(values)}.`;
      if (index % 3 === 1) return `${pick(names)} ${pick(verbs)} ${pick(values)} with ${pick(names)}.`;
      return Array.from({ length: 2 + Math.floor(random() * 6) }, () => pick(words)).join(" ");
    }),
  ];
  texts.push(...fuzzStrings(35, 60, 20261128));
  const profiles = texts.map(relationProfile);

  it("passes over a pair only when the full comparison finds it unrelated", () => {
    let related = 0;
    let passedOver = 0;
    for (const newer of profiles) {
      for (const older of profiles) {
        const full = classifyRelation(newer, older);
        expect(detectProfileRelation(newer, older)).toEqual(full);
        if (full !== null) related++;
        if (!mayRelate(newer, older)) {
          passedOver++;
          expect(full).toBeNull();
        }
      }
    }
    // The corpus holds both kinds in numbers: the check above compared something.
    expect(related).toBeGreaterThan(1_000);
    expect(passedOver).toBeGreaterThan(5_000);
  });

  it("compares a pair at exactly the lowest threshold in full", () => {
    const [abc, ad, abce] = profiles;
    expect(jaccardSimilarity(abc.tokens, ad.tokens)).toBe(0.25);
    expect(mayRelate(abc, ad)).toBe(true);
    expect(jaccardSimilarity(abce.tokens, ad.tokens)).toBe(0.2);
    expect(mayRelate(abce, ad)).toBe(false);
  });
});
