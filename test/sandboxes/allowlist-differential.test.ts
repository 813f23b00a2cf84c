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
import { type AllowlistRule, analyseCommand, checkCommand } from "../../core/sandboxes/allowlist.ts";
import { createTestRuntime, type TestRuntime } from "../../plugins/sandbox-local/test-support.ts";

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

/** mulberry32: a small seeded PRNG, so a failing case can be found again from its seed. */
function createRandom(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes random command strings from the shell grammar (and a little outside it). */
function createCaseGenerator(random: () => number): () => string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const chance = (probability: number): boolean => random() < probability;
  const times = (maximum: number, make: () => string): string[] =>
    Array.from({ length: Math.floor(random() * (maximum + 1)) }, make);
  let pendingHeredocs: string[] = [];
  // A function that calls itself through a pipe is a fork bomb: bodies never name the function.
  let functionNames: string[] = [];

  const programs = [...allowedPrograms, ...refusedPrograms];
  const keywords = ["if", "then", "else", "elif", "fi", "do", "done", "for", "while", "until"];
  const moreKeywords = ["case", "esac", "in", "{", "}", "!", "(", ")", "function", "select"];
  const spell = (name: string): string =>
    pick([
      `'${name}'`,
      `"${name}"`,
      `${name[0]}\\${name.slice(1)}`,
      `$'${name}'`,
      `${name[0]}''${name.slice(1)}`,
      `${name[0]}\\\n${name.slice(1)}`,
      `$"${name}"`,
      `\${x:-${name}}`,
      `$x${name}`,
    ]);
  const program = (): string => {
    if (chance(0.04)) return pick([...keywords, ...moreKeywords]);
    if (chance(0.08)) {
      return pick(["echo", "true", ":", "exec", "command", "set -- 1 2", "x=1", "exec echo", "env true"]);
    }
    if (chance(0.1)) {
      // Not env -i or command -p: they run the programs of the default PATH, which log nothing.
      const wrapper = pick([
        "env",
        "env -u x",
        "env A=1",
        "env --",
        "env -uA",
        "nice",
        "nice -n 1",
        "nice -5",
        "nice --adjustment=1",
        "timeout 5",
        "timeout -s KILL 5",
        "timeout -k1 5",
        "timeout --foreground 5",
        "xargs",
        "xargs -0",
        "xargs -n 1",
        "xargs -r",
        "xargs -I{}",
        "xargs -i",
        "xargs -E x",
        "nohup",
      ]);
      return `${wrapper} ${pick(programs)}`;
    }
    // Mostly allowed names where a command goes, so that the analysis allows the case and a
    // refused name hidden elsewhere (an argument, a here-document, after `&>`) shows up when it runs.
    const names = chance(0.85) ? allowedPrograms : programs;
    const name = pick(names.filter((candidate) => !functionNames.includes(candidate)));
    return chance(0.85) ? name : spell(name);
  };
  const plainWords = [
    "a",
    "\u00e9",
    "\u{1F600}",
    "-l",
    "'x y'",
    '"$x"',
    "$x",
    "$1",
    '"$@"',
    "*",
    "#c",
    "a#b",
    "\\;",
    "'&'",
    "x=1",
    "{",
    "}",
    "!",
    "\\",
    "$",
    `\${x}`,
    "'id'",
    '"id"',
    "\\'",
  ];
  const word = (): string => {
    if (chance(0.15)) return program();
    if (chance(0.02)) return pick(["$(id)", "`id`", "$((1+1))", '"$(id)"', `\${x:-$(id)}`, `\${x=id}`]);
    if (chance(0.15)) return pick([...refusedPrograms, "id;ls", "ls&id", "ls|id", "\\\nid", "#;id"]);
    if (chance(0.04)) return pick(keywords);
    return pick(plainWords);
  };
  const heredoc = (): string => {
    const delimiter = pick(["E", "EOF", "E1", "\u00c9", "\u{1F600}"]);
    const stripTabs = chance(0.3);
    const written = pick([delimiter, `'${delimiter}'`, `"${delimiter}"`, `\\${delimiter}`, `${delimiter}''`]);
    const lines = times(3, () =>
      pick([
        "id",
        "$(id)",
        "`id`",
        "\\$(id)",
        "ls",
        `\t${delimiter}`,
        `${delimiter} `,
        ` ${delimiter}`,
        `${delimiter}x`,
        "x\\",
        "\\",
        "'",
        `\${x}`,
        `${delimiter}\\`,
      ]),
    );
    const end = chance(0.1) ? "" : `${stripTabs && chance(0.5) ? "\t" : ""}${delimiter}`;
    pendingHeredocs.push([...lines, end].join("\n"));
    return `${stripTabs ? "<<-" : "<<"}${chance(0.3) ? " " : ""}${written}`;
  };
  const redirection = (): string => {
    if (chance(0.2)) return heredoc();
    const target = pick(["f", "/dev/null", "&2", "&1", "&-", "id", "'x y'"]);
    const operator = pick([
      ">",
      ">>",
      "<",
      "<>",
      ">|",
      ">&",
      "<&",
      "&>",
      "&>>",
      "2>",
      "1>",
      "12>",
      "2>&",
      "0<&",
    ]);
    if (operator.endsWith("&")) return `${operator}${pick(["1", "2", "-", "id"])}`;
    return `${operator}${chance(0.3) ? " " : ""}${target.replace(/^&/, operator.startsWith("<") ? "" : "")}`;
  };
  const newline = (): string => {
    const bodies = pendingHeredocs;
    pendingHeredocs = [];
    return bodies.length > 0 ? `\n${bodies.join("\n")}\n` : "\n";
  };
  const simple = (): string => {
    const parts = [...times(1, () => pick(["x=1", "A=id", "x=id", "x='id'"])), ...times(1, redirection)];
    parts.push(program());
    parts.push(...times(3, () => (chance(0.3) ? redirection() : word())));
    return parts.join(" ");
  };
  const separator = (): string => pick([";", " ; ", "&", " & ", "&&", "||", "|", " | ", "\n", ";\n", "\n\n"]);
  const list = (depth: number): string => {
    const commands = [command(depth), ...times(2, () => command(depth))];
    return commands
      .map((text, index) => {
        if (index === 0) return text;
        const between = separator();
        return `${between.includes("\n") ? newline() : between} ${text}`;
      })
      .join("");
  };
  const body = (depth: number): string =>
    chance(0.2) ? `\n${list(depth + 1)}${newline()}` : list(depth + 1);
  const command = (depth: number): string => {
    const negate = chance(0.08) ? "! " : "";
    if (depth > 1 || chance(0.6)) return negate + simple();
    const compound = pick([
      () => `{ ${body(depth)}; }`,
      () => `(${body(depth)})`,
      () => `for i in a b; do ${body(depth)}; done`,
      () => `set -- 1; for i do ${body(depth)}; done`,
      () => `set -- 1; for i; do ${body(depth)}; done`,
      () => `set -- 1; for i\ndo ${body(depth)}; done`,
      () => `while ${body(depth)}; do ${body(depth)}; break; done`,
      () => `until ${body(depth)}; do ${body(depth)}; break; done`,
      () =>
        `if ${body(depth)}; then ${body(depth)}; ${chance(0.3) ? `elif ${body(depth)}; then ${body(depth)}; ` : ""}${chance(0.5) ? `else ${body(depth)}; ` : ""}fi`,
      () =>
        `case ${pick(["a", "$x", "id"])} in ${pick(["a", "*", "(a|b)", "id"])}) ${body(depth)};; ${pick(["*", "b"])}) ${body(depth)};; esac`,
      () => functionDefinition("f", depth, "f"),
      () => functionDefinition(pick(programs), depth, pick(programs)),
      () => `sh -c ${quote(list(depth + 1))}`,
    ])();
    return negate + compound + (chance(0.15) ? ` ${redirection()}` : "");
  };
  const functionDefinition = (name: string, depth: number, call: string): string => {
    const saved = functionNames;
    functionNames = [...functionNames, name];
    const definition = chance(0.5) ? `${name}() { ${body(depth)}; }` : `${name}() (${body(depth)})`;
    functionNames = saved;
    return `${definition}; ${call}`;
  };
  const mutate = (text: string): string => {
    const position = Math.floor(random() * (text.length + 1));
    if (chance(0.3)) return text.slice(0, position) + text.slice(position + 1);
    const insert = pick([
      ";",
      "&",
      "|",
      "\n",
      " ",
      "(",
      ")",
      "{",
      "}",
      "'",
      '"',
      "\\",
      ">",
      "<",
      "#",
      " id ",
      "\\\n",
    ]);
    return text.slice(0, position) + insert + text.slice(position);
  };

  return () => {
    pendingHeredocs = [];
    let text = list(0);
    if (pendingHeredocs.length > 0) text += newline();
    // A few random edits find readings the grammar above never writes.
    if (chance(0.2))
      for (let count = 1 + Math.floor(random() * 2); count > 0; count -= 1) text = mutate(text);
    return text;
  };
}

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

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
      const generate = createCaseGenerator(createRandom(seed));
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
