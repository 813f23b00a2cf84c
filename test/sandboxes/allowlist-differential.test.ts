/**
 * The command allowlist checked against the shell that runs the commands (dash, as /bin/sh in a
 * real bubblewrap sandbox). A seeded generator writes command strings from a grammar of shell
 * constructs; each runs with `/bin/sh -c` in a sandbox whose PATH holds only logging shims, so
 * every program a case starts leaves its name in a log. The test fails when a case the analysis
 * allowed started a program the analysis did not allow, or one it did not see at all.
 *
 * The normal run uses a fixed seed and a bounded count. A longer run is one command away:
 *   CAIRN_ALLOWLIST_CASES=100000 CAIRN_ALLOWLIST_SEED=7 npx vitest run test/sandboxes/allowlist-differential.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AllowlistRule,
  analyseCommand,
  checkCommand,
} from "../../core/sandboxes/allowlist/allowlist.ts";
import { createTestRuntime, type TestRuntime } from "../support/local-sandbox-runtime.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { createCaseGenerator, quote } from "./allowlist-case-generator.ts";

const caseCount = Number(process.env.CAIRN_ALLOWLIST_CASES ?? 3000);
const seed = Number(process.env.CAIRN_ALLOWLIST_SEED ?? 20261123);
const casesPerExec = 250;
// About 8 ms a case on two cores; the time limit grows with the count for longer runs.

const allowedPrograms = ["ls", "cat", "wc"];
const refusedPrograms = ["id", "rm", "touch"];
// The wrappers and sh are the real programs (links among the shims), so what they start, and the
// strings of `sh -c '…'`, run as well.
const wrappers = ["env", "nice", "timeout", "xargs", "nohup"];
const rules: AllowlistRule[] = [...allowedPrograms, ...wrappers, "sh"];
// echo and true are shims too: dash runs its builtins first, so only `exec echo` or a wrapper
// program reaches them, and then they are programs that no rule allows.
const shimNames = [...allowedPrograms, ...refusedPrograms, "echo", "true"];

/**
 * Findings that this test must catch (issue 7): dash reads `&>` as `&` then `>`, and a `for`
 * without `in` loops over the positional parameters. They are the first cases of every run.
 */
const knownBypasses = ["true &>/dev/null id >&2", "set -- 1; for i do id; done"];

/** A driver script: each case under its own marker, with its own time limit, and no terminal. */
function driverScript(cases: readonly string[], firstIndex: number): string {
  const lines = [
    ": > /tmp/shims.log",
    "export PATH=/tmp/shims",
    "cd /tmp/work || exit 1",
    // timeout puts each case in its own process group. A case may leave a loop running in the
    // background, so the group of the case before is killed once this one has run (its shims
    // have long finished by then), and the last group after a pause: the sandbox has 64 pids.
    "run() {",
    '  CASE_ID=$1 /usr/bin/timeout -s KILL 2 /bin/sh -c "$2" </dev/null >/dev/null 2>&1 &',
    "  group=$!; wait $group; status=$?",
    '  [ -n "$previous" ] && kill -9 -"$previous" 2>/dev/null',
    '  previous=$group; echo "$1 $status"',
    "}",
    ...cases.map((text, offset) => `run ${firstIndex + offset} ${quote(text)}`),
    '/usr/bin/sleep 0.2; kill -9 -"$previous" 2>/dev/null; true',
  ];
  return `${lines.join("\n")}\n`;
}

describe("the command allowlist, differentially against dash", () => {
  let test: TestRuntime;
  let sandboxId: string;
  beforeAll(async () => {
    test = await createTestRuntime();
    sandboxId = await test.createSandbox();
    const shims = shimNames
      .map(
        (name) => `printf '#!/bin/sh\\necho "$CASE_ID %s" >>/tmp/shims.log\\n' ${name} > /tmp/shims/${name}`,
      )
      .join(" && ");
    const links = wrappers.map((name) => `ln -s /usr/bin/${name} /tmp/shims/${name}`).join(" && ");
    const setUp = await test.run(
      sandboxId,
      `mkdir -p /tmp/shims /tmp/work && ${shims} && chmod +x /tmp/shims/* && ln -s /bin/sh /tmp/shims/sh && ${links}`,
    );
    expect(setUp).toMatchObject({ exitCode: 0 });
  });
  afterAll(() => test?.cleanUp());

  /** Runs the cases in the sandbox; returns the programs each case started, by index. */
  async function runInDash(cases: readonly string[]): Promise<Map<number, Set<string>>> {
    const started = new Map<number, Set<string>>();
    for (let first = 0; first < cases.length; first += casesPerExec) {
      const batch = cases.slice(first, first + casesPerExec);
      await test.runtime.files(sandboxId).writeFile("/tmp/driver.sh", driverScript(batch, first));
      const result = await test.run(sandboxId, "/bin/sh /tmp/driver.sh", 100);
      // The last case reached and the driver's stderr are shown when a batch breaks off.
      const reached = `${result.stdout.trim().split("\n").at(-1)} ${result.stderr.slice(-300)}`;
      expect([result.exitCode, result.timedOut, reached]).toEqual([0, false, reached]);
      const log = await test.runtime.files(sandboxId).readFile("/tmp/shims.log", 4 * 1024 * 1024);
      for (const line of log.split("\n").filter(Boolean)) {
        const [marker, name] = line.split(" ");
        const index = /^\d+$/.test(marker) ? Number(marker) : -1;
        started.set(index, (started.get(index) ?? new Set()).add(name ?? "?"));
      }
    }
    return started;
  }

  it("the harness sees what dash runs: the known bypasses do start id, the wrappers what they wrap", async () => {
    const expected: Array<[string, string[]]> = [
      ...knownBypasses.map((text): [string, string[]] => [text, ["id"]]),
      ["env -u x ls", ["ls"]],
      ["nice -n 1 timeout 5 cat", ["cat"]],
      ["xargs wc", ["wc"]],
      ["sh -c 'ls; exec echo'", ["ls", "echo"]],
    ];
    const started = await runInDash(expected.map(([text]) => text));
    for (const [index, [text, names]] of expected.entries()) {
      expect([text, started.get(index)]).toEqual([text, new Set(names)]);
    }
    for (const text of knownBypasses) expect(checkCommand(rules, text).allowed).toBe(false);
  });

  it(
    `no case that the analysis allows starts a program it did not allow (${caseCount} cases, seed ${seed})`,
    async () => {
      const generate = createCaseGenerator(seededRandom(seed), { allowedPrograms, refusedPrograms });
      const cases = [...knownBypasses, ...Array.from({ length: caseCount }, generate)];
      const started = await runInDash(cases);
      const divergences: Array<{ command: string; started: string[]; analysis: string }> = [];
      let allowedCount = 0;
      for (const [index, text] of cases.entries()) {
        const analysis = analyseCommand(rules, text);
        const ran = [...(started.get(index) ?? [])];
        if (!analysis.allowed) continue;
        allowedCount += 1;
        const unexpected = ran.filter((name) => !analysis.programs.includes(name) || !rules.includes(name));
        if (unexpected.length > 0) {
          divergences.push({
            command: text,
            started: ran,
            analysis: `allowed, saw ${analysis.programs.join(" ")}`,
          });
        }
      }
      // A program started under no case marker is a divergence the harness cannot place.
      expect(started.get(-1)).toBeUndefined();
      expect(divergences.slice(0, 20)).toEqual([]);
      // Without these, a broken harness (no shim ever runs) would pass.
      expect(allowedCount).toBeGreaterThan(caseCount / 20);
      expect([...started.values()].filter((names) => names.has("id")).length).toBeGreaterThan(caseCount / 20);
    },
    Math.max(120_000, caseCount * 25),
  );
});
