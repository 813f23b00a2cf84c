import { afterEach, describe, expect, it } from "vitest";
import { PatternTimeout, type PatternWork, silentLogger } from "../core/index.ts";
import { createPatternThreads } from "./pattern-threads.ts";

// A line RE2 takes a while over: enough to hold one thread while other tasks queue.
const slowFile = { path: "/workspace/slow.txt", content: `${"ab".repeat(2_000_000)}\n` };
const slowPattern = "[ab]*a[ab]{40}c";

const grep = (work: PatternWork, accountId: string, files = [slowFile], timeoutMs = 60_000) =>
  work.run(
    accountId,
    "grepLines",
    { pattern: slowPattern, files, maxMatches: 1, maxLineLength: 10 },
    timeoutMs,
  );

describe("pattern threads", () => {
  let work: PatternWork;
  afterEach(() => work.close());

  it("runs the tasks and answers what the task answers", async () => {
    work = createPatternThreads({ threads: 1, logger: silentLogger });
    const found = await work.run(
      "account",
      "grepLines",
      {
        pattern: "^(a|a)*$",
        files: [{ path: "/x", content: "aaaa!\naaaa\n" }],
        maxMatches: 5,
        maxLineLength: 10,
      },
      10_000,
    );
    expect(found).toEqual({ matches: [{ path: "/x", line: 2, text: "aaaa" }], error: null });
    const refused = await work.run(
      "account",
      "checkAllowlist",
      { rules: ["ls"], command: "rm -rf /" },
      10_000,
    );
    expect(refused.allowed).toBe(false);
  });

  it("lets a second account's task run before the first account's queued ones", async () => {
    work = createPatternThreads({ threads: 1, logger: silentLogger });
    const finished: string[] = [];
    const note = (label: string) => () => finished.push(label);
    // The noisy account queues four tasks; the quiet one's, queued last, runs second.
    const noisy = [1, 2, 3, 4].map((index) => grep(work, "noisy").then(note(`noisy ${index}`)));
    const quiet = grep(work, "quiet").then(note("quiet"));
    await Promise.all([...noisy, quiet]);
    expect(finished).toEqual(["noisy 1", "quiet", "noisy 2", "noisy 3", "noisy 4"]);
  });

  it("ends a task at its deadline with its thread, and the next task runs on a new one", async () => {
    work = createPatternThreads({ threads: 1, logger: silentLogger });
    const endless = { path: "/big", content: "ab".repeat(20_000_000) };
    await expect(grep(work, "noisy", [endless, endless, endless], 1)).rejects.toBeInstanceOf(PatternTimeout);
    const after = await work.run("quiet", "checkAllowlist", { rules: ["ls"], command: "ls -l" }, 10_000);
    expect(after).toEqual({ allowed: true });
  });

  it("refuses tasks once closed", async () => {
    work = createPatternThreads({ threads: 1, logger: silentLogger });
    await work.close();
    await expect(grep(work, "late")).rejects.toThrow(/closed/);
  });
});
