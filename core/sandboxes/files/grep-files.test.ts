import { beforeEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../errors.ts";
import { grepFiles } from "./grep-files.ts";
import { createInMemoryFileSystem, type InMemoryFileSystem } from "./in-memory-file-system.ts";

let files: InMemoryFileSystem;

beforeEach(() => {
  files = createInMemoryFileSystem();
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

  it("refuses nested repetition through error", async () => {
    expect((await grepFiles(files, { pattern: "(a+)+$" })).error).toContain("exponential");
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

  it("checks the clock inside long files", async () => {
    files.seed({ "/workspace/long.txt": "hello\n".repeat(10_000) });
    let calls = 0;
    const result = await grepFiles(
      files,
      { pattern: "hello", path: "long.txt", max_matches: 5000 },
      {
        now: () => {
          calls += 1;
          return calls > 3 ? 20_000 : 0;
        },
      },
    );
    expect(result.error).not.toBeNull();
    expect(result.matches.length).toBeLessThan(5000);
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
