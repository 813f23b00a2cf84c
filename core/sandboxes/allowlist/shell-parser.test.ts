import { describe, expect, it } from "vitest";
import { parseShell } from "./shell-parser.ts";

/** The command names and arguments parseShell finds, as dash would run them. */
function commandsOf(source: string): string[][] | string {
  const parsed = parseShell(source);
  if (!parsed.ok) return parsed.reason;
  return parsed.commands.map((command) => [
    ...command.assignments.map((word) => `${word.value} (assignment)`),
    ...command.words.map((word) => word.value),
  ]);
}

describe("parseShell follows dash", () => {
  it.each<[string, string, string[][]]>([
    ["&> is & then >", "true &>/dev/null id >&2", [["true"], ["id"]]],
    ["a for loop without in", "set -- 1; for i do id; done", [["set", "--", "1"], ["id"]]],
    ["only one digit is a file descriptor", "ls 12>f 2>g", [["ls", "12"]]],
    ["a quoted digit is a word", "ls '2'>f", [["ls", "2"]]],
    ["a backslash-newline inside && and a name", "ls &\\\n& i\\\nd", [["ls"], ["id"]]],
    [
      "reserved words only in command position",
      "echo if then; if ls; then :; fi",
      [["echo", "if", "then"], ["ls"], [":"]],
    ],
    ["{ is a word when it touches text, } an argument", "{ls; echo }", [["{ls"], ["echo", "}"]]],
    [
      "assignments before the name and after redirections",
      ">f A=1 B=$x cmd C=2",
      [["A=1 (assignment)", "B=$x (assignment)", "cmd", "C=2"]],
    ],
    ["a quoted name is not an assignment", '"A"=1 cmd', [["A=1", "cmd"]]],
    ["case arms and patterns", "case $x in (a|b) one;; c) two;; esac", [["one"], ["two"]]],
    ["function bodies", "f() { one; }; g() (two); h() three", [["one"], ["two"], ["three"]]],
    ["a here-document body is data", "cat <<E\nid\nE\nls", [["cat"], ["ls"]]],
    ["<<- strips tabs before the delimiter", "cat <<-E\n\tid\n\tE\nls", [["cat"], ["ls"]]],
    ["a delimiter must be the whole line", "cat <<E\n E\nE \nE\nls", [["cat"], ["ls"]]],
    ["two here-documents are read in order", "cat <<A; cat <<B\nA\nB\nls", [["cat"], ["cat"], ["ls"]]],
    ["a comment starts only at a word", "echo a#b #c\nls", [["echo", "a#b"], ["ls"]]],
    ["a trailing backslash is a literal", "ls \\", [["ls", "\\"]]],
    ["$' is a literal $ in double quotes", `echo "$'x'"`, [["echo", "$'x'"]]],
  ])("%s", (_label, source, expected) => {
    expect(commandsOf(source)).toEqual(expected);
  });

  it.each([
    ["|& is not an operator", "ls |& id", "syntax error"],
    ["! ! is a syntax error", "! ! ls", "syntax error"],
    ["a here-string is a syntax error", "cat <<< x", "syntax error"],
    ["process substitution is a syntax error", "cat <(id)", "syntax error"],
    ["a special builtin cannot be a function", "exec() { ls; }", "bad function name"],
    ["a quoted for variable", "for 'i' in a; do ls; done", "bad for loop variable"],
    ["an unterminated quote", "ls 'x", "unterminated quoted string"],
    ["command substitution", "ls $(id)", "command substitution"],
    ["backticks", "ls `id`", "backticks"],
    ["arithmetic", "echo $((1))", "arithmetic"],
    ["$'…'", "$'id'", "$'…'"],
    ["an assigning expansion", `ls \${X=1}`, "parameter expansions"],
    ["} in command position", "{ls;}; x", "syntax error"],
    ["$ in a here-document delimiter", "cat <<$x\n$x\n", "delimiters"],
    ["deep nesting", `${"(".repeat(200)}ls${")".repeat(200)}`, "nested too deeply"],
  ])("refuses: %s", (_label, source, reason) => {
    expect(commandsOf(source)).toContain(reason);
  });
});
