import { describe, expect, it } from "vitest";
import { detectRelation, jaccardSimilarity } from "./relations.ts";

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
