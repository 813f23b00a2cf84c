/** The TUI's pure pieces: list windows, gauge cells, help-bar fitting, the file browser's parent, output tails. */
import { describe, expect, it } from "vitest";
import { outputTail } from "./command-output.ts";
import { gaugeCells } from "./gauge.ts";
import { globalHints, hintsThatFit, isCaptured, modeKeys } from "./help-bar.ts";
import { clip } from "./memory-detail.ts";
import { parentDirectory } from "./use-session-files.ts";
import { appendOutput, type ProcessOutput } from "./use-session-processes.ts";
import { moveSelection, visibleWindow } from "./visible-window.ts";

describe("visibleWindow", () => {
  const items = Array.from({ length: 20 }, (_, index) => index);
  it("shows everything when it fits", () => {
    expect(visibleWindow(items.slice(0, 5), 4, 10)).toEqual({ items: [0, 1, 2, 3, 4], start: 0 });
  });
  it("keeps the selection in view, centred while scrolling and clamped at both ends", () => {
    expect(visibleWindow(items, 0, 5)).toEqual({ items: [0, 1, 2, 3, 4], start: 0 });
    expect(visibleWindow(items, 10, 5)).toEqual({ items: [8, 9, 10, 11, 12], start: 8 });
    expect(visibleWindow(items, 19, 5)).toEqual({ items: [15, 16, 17, 18, 19], start: 15 });
  });
  it("moves a selection within the list", () => {
    expect(moveSelection(0, -1, 3)).toBe(0);
    expect(moveSelection(2, 1, 3)).toBe(2);
    expect(moveSelection(1, 1, 3)).toBe(2);
    expect(moveSelection(5, 1, 0)).toBe(0);
  });
});

describe("gaugeCells", () => {
  it("fills in proportion, shows any use as at least one cell, and caps at full", () => {
    expect(gaugeCells(0, 10, 20)).toEqual({ filled: 0, empty: 20 });
    expect(gaugeCells(5, 10, 20)).toEqual({ filled: 10, empty: 10 });
    expect(gaugeCells(0.0004, 20, 20)).toEqual({ filled: 1, empty: 19 });
    expect(gaugeCells(30, 10, 20)).toEqual({ filled: 20, empty: 0 });
    expect(gaugeCells(3, 0, 20)).toEqual({ filled: 1, empty: 19 });
  });
});

describe("the help bar", () => {
  it("fits in 80 columns with the global keys in every mode that allows them", () => {
    for (const mode of Object.keys(modeKeys) as Array<keyof typeof modeKeys>) {
      const shown = hintsThatFit(mode, 79);
      expect(shown.length, mode).toBe(
        modeKeys[mode].hints.length + (isCaptured(mode) ? 0 : globalHints.length),
      );
    }
  });
  it("drops hints that do not fit rather than wrapping", () => {
    const shown = hintsThatFit("sessions:list", 30);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.map(([key, action]) => `${key} ${action} `).join("").length).toBeLessThanOrEqual(30);
  });
  it("captures every key while typing or answering a question", () => {
    expect(isCaptured("sessions:command")).toBe(true);
    expect(isCaptured("memory:search")).toBe(true);
    expect(isCaptured("memory:confirm-forget")).toBe(true);
    expect(isCaptured("sessions:terminal")).toBe(true);
    expect(isCaptured("sessions:list")).toBe(false);
  });
});

describe("parentDirectory", () => {
  it("goes up one directory and never above /workspace/", () => {
    expect(parentDirectory("/workspace/src/lib/")).toBe("/workspace/src/");
    expect(parentDirectory("/workspace/src/")).toBe("/workspace/");
    expect(parentDirectory("/workspace/")).toBe("/workspace/");
  });
});

describe("outputTail", () => {
  const run = (chunks: Array<[string, boolean]>) => ({
    id: 1,
    command: "x",
    running: true,
    error: null,
    result: null,
    output: chunks.reduce((output, [chunk, fromStderr]) => appendOutput(output, chunk, fromStderr), {
      lines: [],
      open: false,
    } as ProcessOutput),
  });
  it("keeps the last lines in the order they came, marking stderr, while the command runs", () => {
    const chunks: Array<[string, boolean]> = [
      ["a\nb\nc", false],
      ["oops\n", true],
      ["d\n", false],
    ];
    expect(outputTail(run(chunks), 3)).toEqual([
      { text: "c", fromStderr: false },
      { text: "oops", fromStderr: true },
      { text: "d", fromStderr: false },
    ]);
    expect(outputTail(run([]), 5)).toEqual([]);
  });
});

describe("clip", () => {
  it("keeps text that fits and cuts wrapped or many-line text to the rows given", () => {
    expect(clip("short", 10, 2)).toBe("short");
    expect(clip("a".repeat(25), 10, 2)).toBe(`${"a".repeat(19)}…`);
    expect(clip("one\ntwo\nthree\nfour", 10, 2)).toBe("one\ntwo…");
    expect(clip("one\n".repeat(3).trim(), 10, 3)).toBe("one\none\none");
  });
});
