import { beforeEach, describe, expect, it } from "vitest";
import { createFakeFileSystem, type FakeFileSystem } from "../../../test/doubles/fake-file-system.ts";
import { ServiceError } from "../../errors.ts";
import { PatternTimeout, type RunPatternTask, runPatternTaskInline } from "../../ports/pattern-work.ts";
import type { GrepLinesInput } from "../patterns/pattern-tasks.ts";
import { grepFiles } from "./grep-files.ts";

let files: FakeFileSystem;

beforeEach(() => {
  files = createFakeFileSystem();
  files.seed({
    "/workspace/a.py": "import os\nprint('hello')\r\nx = 1\n",
    "/workspace/src/b.py": "def hello():\n    return 'hello'\n",
    "/workspace/src/c.txt": "hello from text\n",
    "/workspace/bin.dat": "hello\0binary",
    "/tmp/other.py": "hello\n",
  });
});

describe("grepFiles", () => {
  it("finds matching lines with 1-based numbers, sorted by path, without carriage returns", async () => {
    expect(await grepFiles(files, { pattern: "hel+o" })).toEqual({
      matches: [
        { path: "/workspace/a.py", line: 2, text: "print('hello')" },
        { path: "/workspace/src/b.py", line: 1, text: "def hello():" },
        { path: "/workspace/src/b.py", line: 2, text: "    return 'hello'" },
        { path: "/workspace/src/c.txt", line: 1, text: "hello from text" },
      ],
      error: null,
      truncated: false,
    });
  });

  it("filters by a file-name glob at any depth, or a path glob", async () => {
    const byName = await grepFiles(files, { pattern: "hello", glob: "*.py" });
    expect(byName.matches.map((match) => match.path)).toEqual([
      "/workspace/a.py",
      "/workspace/src/b.py",
      "/workspace/src/b.py",
    ]);
    const byPath = await grepFiles(files, { pattern: "hello", glob: "src/*.txt" });
    expect(byPath.matches.map((match) => match.path)).toEqual(["/workspace/src/c.txt"]);
  });

  it("searches below the given path only, and a single file", async () => {
    expect((await grepFiles(files, { pattern: "hello", path: "/tmp" })).matches).toHaveLength(1);
    expect((await grepFiles(files, { pattern: "x =", path: "a.py" })).matches).toEqual([
      { path: "/workspace/a.py", line: 3, text: "x = 1" },
    ]);
  });

  it("stops at max_matches and reports truncation only when more exist", async () => {
    const cut = await grepFiles(files, { pattern: "hello", max_matches: 2 });
    expect(cut.matches).toHaveLength(2);
    expect(cut.truncated).toBe(true);
    const exact = await grepFiles(files, { pattern: "hello", max_matches: 4 });
    expect(exact.matches).toHaveLength(4);
    expect(exact.truncated).toBe(false);
  });

  it("returns an invalid regex in error instead of throwing", async () => {
    const result = await grepFiles(files, { pattern: "(unclosed" });
    expect(result.matches).toEqual([]);
    expect(result.error).toContain("invalid regular expression");
  });

  // JavaScript's engine took 27 s for 30 a's and hours for 40, on the event loop of every account.
  it("matches a catastrophic backtracking pattern in linear time", async () => {
    files.seed({ "/workspace/evil.txt": `${"a".repeat(40)}!\n${"a".repeat(40)}\n` });
    const result = await grepFiles(files, { pattern: "^(a|a)*$", path: "evil.txt" });
    expect(result).toEqual({
      matches: [{ path: "/workspace/evil.txt", line: 2, text: "a".repeat(40) }],
      error: null,
      truncated: false,
    });
  });

  it("says lookaround is not RE2 syntax", async () => {
    const result = await grepFiles(files, { pattern: "hello(?=!)" });
    expect(result.error).toMatch(/lookahead and lookbehind are not supported.*RE2/);
  });

  it("stops when the time budget runs out and says so", async () => {
    let clock = 0;
    const result = await grepFiles(
      files,
      { pattern: "hello" },
      {
        now: () => {
          clock += 4_000;
          return clock;
        },
      },
    );
    expect(result.error).toContain("10 s");
    expect(result.truncated).toBe(true);
    expect(result.matches.length).toBeLessThan(4);
  });

  it("counts the time before it began (waiting for a turn to walk) against the budget", async () => {
    const late = await grepFiles(files, { pattern: "hello" }, { now: () => 50_000, started: 39_000 });
    expect(late).toEqual({
      matches: [],
      error: "search stopped after 10 s; narrow path or glob",
      truncated: true,
    });
    const inTime = await grepFiles(files, { pattern: "hello" }, { now: () => 50_000, started: 45_000 });
    expect(inTime).toMatchObject({ error: null, truncated: false });
    expect(inTime.matches).toHaveLength(4);
  });

  it("keeps what it found when a matching task runs out of time", async () => {
    files.seed({ "/workspace/z-late.txt": "hello\n" });
    let batches = 0;
    const run: RunPatternTask = async (name, input, timeoutMs) => {
      if (name === "grepLines" && (input as GrepLinesInput).files.length > 0 && ++batches > 1)
        throw new PatternTimeout(name, timeoutMs);
      return runPatternTaskInline(name, input, timeoutMs);
    };
    const result = await grepFiles(files, { pattern: "hello" }, { run, batchCharacters: 1 });
    expect(result.error).toContain("10 s");
    expect(result.truncated).toBe(true);
  });

  it("answers with the budget's error, not a failure, when the pattern's check runs out of time", async () => {
    const run: RunPatternTask = async (name, _input, timeoutMs) => {
      throw new PatternTimeout(name, timeoutMs);
    };
    expect(await grepFiles(files, { pattern: "hello" }, { run })).toEqual({
      matches: [],
      error: "search stopped after 10 s; narrow path or glob",
      truncated: true,
    });
  });

  it("caps long lines in results", async () => {
    files.seed({ "/workspace/wide.txt": `${"x".repeat(1000)}needle` });
    const result = await grepFiles(files, { pattern: "needle", path: "wide.txt" }, { maxLineLength: 100 });
    expect(result.matches[0].text).toBe("x".repeat(100));
  });

  it.each([0, 5001, 1.5])("refuses max_matches %s", async (maxMatches) => {
    await expect(grepFiles(files, { pattern: "x", max_matches: maxMatches })).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("refuses a search root outside the sandbox", async () => {
    await expect(grepFiles(files, { pattern: "x", path: "/etc" })).rejects.toBeInstanceOf(ServiceError);
  });

  it("skips files whose link leads outside instead of failing the search", async () => {
    files.linkOutside("/workspace/src/link");
    expect((await grepFiles(files, { pattern: "hello" })).matches).toHaveLength(4);
  });
});
