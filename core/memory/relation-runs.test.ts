import { describe, expect, it } from "vitest";
import { createRunProfiles } from "./relation-runs.ts";
import type { RelationProfile } from "./relations.ts";

// A profile the size of a 64 KiB text's (about 8,000 distinct words), without analysing one.
const largeTokens: ReadonlySet<string> = new Set(Array.from({ length: 8_000 }, (_, index) => `word${index}`));
const largeProfile = (): RelationProfile => ({
  tokens: largeTokens,
  tokenHashes: new Uint32Array(),
  entityHashes: new Uint32Array(),
  entities: [],
  entitySet: new Set(),
  subject: null,
  marker: false,
  addition: false,
});

describe("a link run's profiles", () => {
  it("analyses each of 100 rows of 64 KiB once, however many jobs compare with them", () => {
    // Regression: the profiles were kept in one 16 MiB cache, which holds about 20 of these. A
    // 500-memory import compares every job with the same 100 rows in the same order, so each was
    // dropped just before its next use and analysed again: 50,000 analyses, three minutes of the
    // server's thread.
    let analysed = 0;
    const profileOf = createRunProfiles(() => {
      analysed++;
      return largeProfile();
    });
    const window = Array.from({ length: 100 }, (_, index) => `row ${index} ${"x".repeat(65_536)}`);
    for (let job = 0; job < 50; job++) for (const content of window) profileOf(content);
    expect(analysed).toBe(100);
  });
});
