/**
 * A long answer written in slices is byte for byte JSON.stringify's, and it gives the event loop
 * back between slices: another task's turn comes before the whole answer has been written.
 */
import { describe, expect, it } from "vitest";
import { nextTurn } from "../../core/index.ts";
import { jsonInSlices, writesInSlices } from "./json-answer.ts";

const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("a JSON answer in slices", () => {
  it("is exactly JSON.stringify's text, whatever the values", async () => {
    const memories = Array.from({ length: 300 }, (_, index) => ({
      id: `m${index}`,
      content: `text "${index}" \\ é ☃ \u0000 ${"x".repeat(index * 37)}`,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
      skipped: undefined,
      nested: { list: [1, null, "two"] },
    }));
    const values: unknown[] = [
      { source_session_id: null, memories },
      { memories, next_cursor: undefined, total: 300 },
      memories,
      Array.from({ length: 100 }, (_, index) => (index % 3 === 0 ? undefined : index)),
    ];
    for (const value of values) {
      expect(writesInSlices(value)).toBe(true);
      expect(await text(jsonInSlices(value))).toBe(JSON.stringify(value));
    }
    expect(writesInSlices({ memories: memories.slice(0, 10) })).toBe(false);
    expect(writesInSlices({ toJSON: () => "x", list: memories })).toBe(false);
  });

  it("lets other work run while a long answer is written", async () => {
    const big = { memories: Array.from({ length: 500 }, () => ({ content: "y".repeat(32 * 1024) })) };
    let turns = 0;
    let writing = true;
    const counting = (async () => {
      while (writing) {
        await nextTurn();
        turns++;
      }
    })();
    const written = await text(jsonInSlices(big));
    writing = false;
    await counting;
    expect(written.length).toBe(JSON.stringify(big).length);
    // 16 MiB cannot be written in one 1 ms slice: other tasks had turns in between.
    expect(turns).toBeGreaterThan(1);
  });
});
