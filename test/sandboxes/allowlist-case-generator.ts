/**
 * The generator of the allowlist's differential test (allowlist-differential.test.ts): random
 * command strings from a grammar of shell constructs as dash reads them, from a seeded PRNG so a
 * failing case can be written again from its seed.
 */
/** Writes random command strings from the shell grammar (and a little outside it). */
export function createCaseGenerator(
  random: () => number,
  {
    allowedPrograms,
    refusedPrograms,
  }: { allowedPrograms: readonly string[]; refusedPrograms: readonly string[] },
): () => string {
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

export const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
