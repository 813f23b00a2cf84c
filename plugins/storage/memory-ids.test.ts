import { describe, expect, it } from "vitest";
import { timeOrderedId } from "./memory-ids.ts";

const version4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("memory ids", () => {
  it("are version-4 UUIDs, as the contract says", () => {
    for (let index = 0; index < 1_000; index++) expect(timeOrderedId()).toMatch(version4);
    // The first and last millisecond a 48-bit time holds.
    expect(timeOrderedId(0)).toMatch(/^00000000-0000-4/);
    expect(timeOrderedId(2 ** 48 - 1)).toMatch(/^ffffffff-ffff-4/);
  });

  it("begin with the time, so later ids sort later, byte for byte", () => {
    const start = Date.parse("2026-11-24T09:00:00.000Z");
    const ids = Array.from({ length: 2_000 }, (_, index) => timeOrderedId(start + index));
    expect(ids.toSorted()).toEqual(ids);
    expect(timeOrderedId(start).slice(0, 13)).toBe(
      `${start.toString(16).padStart(12, "0").slice(0, 8)}-${start.toString(16).padStart(12, "0").slice(8)}`,
    );
  });

  it("differ within one millisecond (74 random bits)", () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 100_000 }, () => timeOrderedId(now)));
    expect(ids.size).toBe(100_000);
  });
});
