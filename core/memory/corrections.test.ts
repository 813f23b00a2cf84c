import { describe, expect, it } from "vitest";
import { loadPairs } from "../../test/bench/relation-detection/pairs.ts";
import {
  correctionConfidence,
  correctionProfile,
  detectRelationByMeaning,
  sameThingThreshold,
  valueThreshold,
  wordThreshold,
} from "./corrections.ts";
import { detectRelation } from "./relations.ts";

// Cosines of the pairs' vectors from all-MiniLM-L6-v2 (the model server's default until 2026-11-30), as
// test/bench/relation-detection.ts measured them: the decision is tested on fixed numbers.
describe("detectRelationByMeaning", () => {
  it.each([
    ["The CEO is Alice Wong.", "The CEO is Bob Stone.", 0.65],
    ["Deployments happen every Tuesday.", "Deployments happen every Thursday.", 0.935],
    ["Der Geschäftsführer ist Alice Wong.", "Der Geschäftsführer ist Bob Stone.", 0.593],
    ["Las reuniones son los martes.", "Las reuniones son los jueves.", 0.866],
    ["Das Meeting beginnt um 9 Uhr.", "Das Meeting beginnt um 11 Uhr.", 0.924],
    ["The meetup starts at 6pm.", "Correction: the meetup starts at 7pm.", 0.849],
    ["Deployments happen every Tuesday.", "We now deploy on Thursdays.", 0.77],
  ])("%j → %j is a correction the lexical rules miss", (older, newer, similarity) => {
    expect(detectRelation({ content: newer }, { content: older })?.type).not.toBe("updates");
    expect(detectRelationByMeaning({ content: newer }, { content: older }, similarity)).toEqual({
      type: "updates",
      confidence: similarity,
    });
  });

  it.each([
    // Another subject, the same shape: nearer in meaning than the CEO's correction is.
    ["The CEO is Alice Wong.", "The CFO is Alice Wong.", 0.752],
    ["Alice lives in Berlin.", "Bob lives in Berlin.", 0.661],
    ["Jamal drives a Toyota Corolla.", "Jamal's sister drives a Honda Civic.", 0.7],
    // The same subject, another slot.
    ["The CEO is Alice Wong.", "The CEO lives in Boston.", 0.557],
    // A verb the rules do not know ("bundles", "shipped"): no slot in common is known.
    [
      "The release train leaves every second Tuesday.",
      "A release train bundles features every second week.",
      0.732,
    ],
    [
      "The second release of the train app shipped late.",
      "A release train bundles features every second week.",
      0.599,
    ],
    ["The conference will be held in Lisbon.", "The conference will last three days.", 0.399],
    // Said again.
    ["The CEO is Alice Wong.", "Alice Wong is our CEO.", 0.9],
  ])("%j → %j is no correction", (older, newer, similarity) => {
    expect(detectRelationByMeaning({ content: newer }, { content: older }, similarity)?.type).not.toBe(
      "updates",
    );
  });

  it("keeps the 'now also' rule: an addition never supersedes, however near in meaning", () => {
    const additions = loadPairs().filter((pair) => pair.label === "addition");
    expect(additions.length).toBeGreaterThanOrEqual(30);
    for (const { older, newer } of additions) {
      expect(detectRelation({ content: newer }, { content: older })?.type).not.toBe("updates");
      expect(detectRelationByMeaning({ content: newer }, { content: older }, 1)?.type).not.toBe("updates");
    }
  });

  it("needs the meaning to be near: the same shape far apart in meaning is no correction", () => {
    const older = { content: "The CEO is Alice Wong." };
    const newer = { content: "The CEO is Bob Stone." };
    expect(detectRelationByMeaning(newer, older, valueThreshold)?.type).toBe("updates");
    expect(detectRelationByMeaning(newer, older, valueThreshold - 0.01)?.type).not.toBe("updates");
    // Changed words that are not values need more.
    const rollout = [
      { content: "The deployment uses canary rollout." },
      { content: "The deployment uses blue-green rollout." },
    ] as const;
    expect(detectRelation(...rollout)?.type).toBe("updates");
    expect(
      correctionConfidence(
        correctionProfile(rollout[0].content),
        correctionProfile(rollout[1].content),
        wordThreshold,
      ),
    ).toBe(wordThreshold);
    expect(
      correctionConfidence(
        correctionProfile(rollout[0].content),
        correctionProfile(rollout[1].content),
        wordThreshold - 0.01,
      ),
    ).toBeNull();
  });

  it("takes back a lexical update whose statements are far apart in meaning, or only inflected", () => {
    const office = [
      { content: "Our office has a rooftop terrace." },
      { content: "Our office is in Berlin." },
    ] as const;
    expect(detectRelation(...office)?.type).toBe("updates");
    expect(detectRelationByMeaning(...office, sameThingThreshold - 0.01)?.type).toBe("related");
    expect(detectRelationByMeaning(...office, sameThingThreshold)?.type).toBe("updates");
    const lena = [{ content: "Lena is living in Hamburg." }, { content: "Lena lives in Hamburg." }] as const;
    expect(detectRelation(...lena)?.type).toBe("updates");
    expect(detectRelationByMeaning(...lena, 0.983)?.type).toBe("related");
  });
});

describe("the labelled pairs", () => {
  it("hold at least 200 pairs, both halves with every label", () => {
    const pairs = loadPairs();
    expect(pairs.length).toBeGreaterThanOrEqual(200);
    for (const half of ["calibration", "held-out"]) {
      const labels = new Set(pairs.filter((pair) => pair.half === half).map((pair) => pair.label));
      expect([...labels].sort()).toEqual([
        "addition",
        "lookalike",
        "other-slot",
        "restatement",
        "unrelated",
        "update",
      ]);
    }
  });
});
