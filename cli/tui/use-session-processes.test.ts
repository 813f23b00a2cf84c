/** A followed process's output as lines: chunks that split a line, stderr beside stdout, the kept end. */
import { describe, expect, it } from "vitest";
import { appendOutput, type ProcessOutput } from "./use-session-processes.ts";

const empty: ProcessOutput = { lines: [], open: false };
const texts = (output: ProcessOutput) => output.lines.map((line) => line.text);

describe("appendOutput", () => {
  it("continues a line a chunk left open, and starts a new one after a newline", () => {
    let output = appendOutput(empty, "tick 1\ntic", false);
    expect(texts(output)).toEqual(["tick 1", "tic"]);
    expect(output.open).toBe(true);
    output = appendOutput(output, "k 2\n", false);
    expect(texts(output)).toEqual(["tick 1", "tick 2"]);
    expect(output.open).toBe(false);
    output = appendOutput(output, "\n", false);
    expect(texts(output)).toEqual(["tick 1", "tick 2", ""]);
  });

  it("keeps stderr on lines of its own, even when stdout left a line open", () => {
    let output = appendOutput(empty, "progress", false);
    output = appendOutput(output, "oops\n", true);
    output = appendOutput(output, " done\n", false);
    expect(output.lines).toEqual([
      { text: "progress", fromStderr: false },
      { text: "oops", fromStderr: true },
      { text: " done", fromStderr: false },
    ]);
  });

  it("keeps the last 64 KiB: whole lines go from the front, one long line keeps its end", () => {
    let output = empty;
    for (let index = 0; index < 2_000; index++)
      output = appendOutput(output, `${"x".repeat(60)} ${index}\n`, false);
    expect(texts(output).at(-1)).toBe(`${"x".repeat(60)} 1999`);
    expect(texts(output).join("\n").length).toBeLessThanOrEqual(64 * 1024);
    expect(texts(output)[0]).not.toContain(" 0");

    const long = appendOutput(empty, `${"a".repeat(100_000)}end`, false);
    expect(long.lines).toHaveLength(1);
    expect(long.lines[0].text).toHaveLength(64 * 1024);
    expect(long.lines[0].text.endsWith("aend")).toBe(true);
  });
});
