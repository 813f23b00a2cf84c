import { describe, expect, it } from "vitest";
import { cutBytes, cutKeptOutput, type OutputKeep } from "../output-budget.ts";
import { createOutputKeeper, joinKeptOutput } from "./kept-output.ts";

const encoder = new TextEncoder();

/** Feeds `bytes` to a keeper in chunks of the given sizes (cycled). */
function keep(
  bytes: Uint8Array,
  capBytes: number,
  budget?: { maxBytes: number; keep: OutputKeep },
  sizes = [7],
) {
  const keeper = createOutputKeeper(capBytes, budget);
  for (let position = 0, index = 0; position < bytes.length; index++) {
    const size = sizes[index % sizes.length];
    keeper.add(bytes.subarray(position, position + size));
    position += size;
  }
  return keeper;
}

describe("createOutputKeeper", () => {
  it("keeps the head up to the cap without a budget, and says it cut", () => {
    const keeper = keep(encoder.encode("0123456789"), 4);
    expect(new TextDecoder().decode(joinKeptOutput(keeper.kept()))).toBe("0123");
    expect([keeper.kept().totalBytes, keeper.truncated()]).toEqual([10, true]);
  });

  it("keeps the true end of an output far past the cap with keep tail", () => {
    const output = encoder.encode(Array.from({ length: 20_000 }, (_, index) => `${index + 1}\n`).join(""));
    const keeper = keep(output, 1024, { maxBytes: 12, keep: "tail" }, [1000, 3, 4096]);
    expect(new TextDecoder().decode(keeper.kept().tail)).toBe("\n19999\n20000\n".slice(-12));
    expect([keeper.kept().head.length, keeper.kept().totalBytes, keeper.truncated()]).toEqual([
      0,
      output.length,
      false,
    ]);
  });

  it("gives the cut core would make of the whole output, for every keep, chunking and length", () => {
    // Three-byte characters among one-byte ones, so cuts land inside characters.
    const text = Array.from({ length: 300 }, (_, index) => (index % 3 === 0 ? "€" : String(index % 10))).join(
      "",
    );
    const whole = encoder.encode(text);
    for (const length of [0, 1, 9, 10, 11, 40, 97, whole.length]) {
      const output = whole.subarray(0, length);
      for (const keepPart of ["head", "tail", "both"] as const) {
        for (const budget of [1, 4, 9, 10, 33]) {
          for (const sizes of [[1], [5, 2], [1000]]) {
            const keeper = keep(output, 8, { maxBytes: budget, keep: keepPart }, sizes);
            expect(cutKeptOutput(keeper.kept(), budget, keepPart)).toEqual(
              cutBytes(output, budget, keepPart),
            );
          }
        }
      }
    }
  });
});
