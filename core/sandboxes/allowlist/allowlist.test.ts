import { describe, expect, it } from "vitest";
import { ServiceError } from "../../errors.ts";
import {
  type AllowlistRule,
  checkCommand,
  parseAllowlistRules,
  parseAndCompileAllowlistRules,
} from "./allowlist.ts";

function serviceErrorOf(action: () => unknown): ServiceError {
  try {
    action();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("expected a ServiceError");
}

describe("parseAllowlistRules", () => {
  it("keeps bare names as strings and completes objects with empty pattern lists", () => {
    expect(parseAllowlistRules([" ls ", { command: "git", args_allow: ["^status"] }])).toEqual([
      "ls",
      { command: "git", args_allow: ["^status"], args_deny: [] },
    ]);
  });

  it("refuses more rules than the limit with details.limit", () => {
    const error = serviceErrorOf(() => parseAllowlistRules(["a", "b", "c"], 2));
    expect(error.code).toBe("too_many_rules");
    expect(error.details).toEqual({ limit: 2 });
  });

  it("refuses an empty list as a validation error", () => {
    const error = serviceErrorOf(() => parseAllowlistRules([]));
    expect(error.code).toBe("validation_error");
  });

  it("refuses a pattern over 200 characters", () => {
    const error = serviceErrorOf(() =>
      parseAllowlistRules([{ command: "git", args_deny: ["a".repeat(201)] }]),
    );
    expect(error.code).toBe("pattern_too_long");
  });

  it("names the index in the request of a pattern that does not compile, not its value", () => {
    const error = serviceErrorOf(() =>
      parseAndCompileAllowlistRules(["/bin/rm", { command: "git", args_deny: ["(x"] }]),
    );
    expect(error.details).toMatchObject({ rule_index: 1, field: "args_deny", pattern_index: 0 });
  });

  it("names a pattern that does not compile by its place, not its value", () => {
    const error = serviceErrorOf(() =>
      parseAndCompileAllowlistRules(["ls", { command: "git", args_allow: ["^ok$", "secret-value(("] }]),
    );
    expect(error.code).toBe("invalid_pattern");
    expect(error.message).toBe(
      "rules[1].args_allow[1] is not a valid regular expression: missing closing ) (RE2 syntax, which matches in linear time)",
    );
    expect(error.message).not.toContain("secret-value");
  });

  // Patterns run on RE2, where nested repetition costs linear time: it is no longer refused.
  it("keeps nested repetition and refuses what RE2 cannot run, saying why", () => {
    expect(
      parseAndCompileAllowlistRules([{ command: "git", args_allow: ["(a+)+$", "^(a|a)*$"] }]),
    ).toHaveLength(1);
    const error = serviceErrorOf(() =>
      parseAndCompileAllowlistRules([{ command: "git", args_allow: ["^(?!push)"] }]),
    );
    expect(error.code).toBe("invalid_pattern");
    expect(error.message).toContain("lookahead and lookbehind are not supported");
  });

  it.each([
    ["not a list", "ls"],
    ["a number", [42]],
    ["an object without command", [{ args_allow: [] }]],
    ["an empty name", [""]],
    ["a path", ["/bin/rm"]],
    ["a name with spaces", ["rm -rf"]],
    ["shell syntax", ["ls;rm"]],
    ["a name over 200 characters", ["x".repeat(201)]],
    ["patterns that are not a list", [{ command: "git", args_allow: "^status" }]],
    ["a pattern that is not a string", [{ command: "git", args_deny: [1] }]],
  ])("refuses %s as invalid_rules", (_label, input) => {
    expect(serviceErrorOf(() => parseAllowlistRules(input)).code).toBe("invalid_rules");
  });

  it("leaves out entries that are not valid rules and keeps the rest, allowing less, never more", () => {
    expect(
      parseAllowlistRules([
        "",
        " ls ",
        42,
        { command: "git", args_deny: "push" },
        { command: "cat", args_deny: [1] },
      ]),
    ).toEqual(["ls"]);
    const refusal = serviceErrorOf(() => parseAllowlistRules(["", "/bin/rm"]));
    expect(refusal.code).toBe("invalid_rules");
    expect(refusal.message).toMatch(/^No valid rule: rules\[0\].*; rules\[1\]/);
    // A pattern that is wrong fails the whole list, as before.
    expect(
      serviceErrorOf(() => parseAndCompileAllowlistRules(["ls", { command: "git", args_deny: ["(x"] }])).code,
    ).toBe("invalid_pattern");
  });
});

const rules: AllowlistRule[] = [
  "ls",
  "cat",
  "grep",
  "python3",
  "sh",
  "env",
  "xargs",
  "find",
  "timeout",
  "nice",
  "nohup",
  "time",
  "busybox",
  "sudo",
  { command: "git", args_allow: ["^(status|log|diff)( |$)"], args_deny: ["--output"] },
  { command: "npm", args_allow: [], args_deny: ["^publish"] },
  "watch",
];

describe("checkCommand allows", () => {
  it.each([
    "ls",
    "ls -la /workspace",
    "ls | grep x",
    "ls && cat a.txt || echo failed; ls &",
    "ls\ncat a.txt",
    "FOO=1 BAR='x y' python3 main.py",
    "cat a.txt > out.txt 2>&1",
    "cat < in.txt >> out.txt",
    "ls 2>/dev/null",
    "cd src && python3 -m pytest",
    "echo hello; pwd; true",
    "[ -f a.txt ] && cat a.txt",
    "/usr/bin/ls -l",
    "/bin/cat x",
    "'ls' -l",
    "l\\s",
    "ls '$(rm -rf /)'",
    "grep 'a|b;c' file.txt",
    "ls # ; rm -rf /",
    "cat <<EOF\nrm -rf /\nEOF",
    "cat <<'EOF'\n$(rm x) `rm x`\nEOF\nls",
    "cat <<-EOF\n\trm x\n\tEOF",
    "ls \\",
    "(ls; cat x) > out",
    "{ ls; cat x; }",
    "case x in a) ls;; (b|c) cat x;; esac",
    "set -- 1; for i do ls; done",
    "until ls; do cat x; done",
    "if ls; then cat; elif cat; then ls; else echo; fi",
    "ls() { cat x; }",
    "ls 12>/dev/null",
    "git status",
    "git log --oneline",
    "git diff 'HEAD~1'",
    "npm test",
    "env FOO=1 python3 x.py",
    "env -i ls",
    "env",
    "timeout 10 python3 x.py",
    "timeout -s KILL 5s ls",
    "nice -n 5 ls",
    "nohup python3 server.py &",
    "time -p ls",
    "sudo -u nobody ls",
    "busybox ls",
    "xargs cat",
    "find . -name '*.py' -exec cat {} \\;",
    "find . -type f -exec grep -l x {} +",
    "find . -name '*.txt'",
    "sh -c 'ls | grep x'",
    "sh -ec 'cat a && ls'",
    "exec python3 app.py",
    "command -v rm",
    "command ls",
    "if ls; then cat x; else echo no; fi",
    "for f in a b *.py; do cat $f; done",
    "while read line; do echo $line; done < in.txt",
    "export NODE_ENV=production && ls",
    "python3 -c 'print(1)'",
    `ls \${HOME}`,
    "",
    "   ",
  ])("%j", (command) => {
    expect(checkCommand(rules, command)).toEqual({ allowed: true });
  });
});

describe("checkCommand refuses", () => {
  it.each([
    ["a program not listed", "rm -rf /", "rm is not in the command allowlist"],
    ["a second command after ;", "ls; rm -rf /", "rm"],
    ["after &&", "ls && rm x", "rm"],
    ["after ||", "ls || rm x", "rm"],
    ["in a pipeline", "ls | rm x", "rm"],
    ["|& (not an operator in dash)", "ls |& rm x", "syntax error"],
    ["after &", "ls & rm x", "rm"],
    ["on a new line", "ls\nrm x", "rm"],
    ["after a line continuation", "ls;\\\nrm x", "rm"],
    ["after an assignment", "FOO=1 rm x", "rm"],
    ["after a redirection", "> out rm x", "rm"],
    ["an escaped name", "r\\m x", "rm"],
    ["a quoted name", "'r''m' x", "rm"],
    ["$( )", "ls $(rm -rf /)", "command substitution"],
    ["$( ) in double quotes", 'ls "$(rm -rf /)"', "command substitution"],
    ["backticks", "ls `rm -rf /`", "backticks"],
    ["backticks in double quotes", 'echo "`rm x`"', "backticks"],
    ["arithmetic expansion", "echo $((1+2))", "arithmetic"],
    ["process substitution (a syntax error in dash)", "cat <(rm x)", "syntax error"],
    ["output process substitution (a syntax error in dash)", "ls >(rm x)", "syntax error"],
    ["a subshell", "(rm x)", "rm is not in"],
    ["a brace group", "{ rm x; }", "rm is not in"],
    ["a function body", "ls() { rm x; }; ls", "rm is not in"],
    ["eval", "eval 'rm x'", "eval is not allowed"],
    ["eval even when listed", "eval ls", "eval is not allowed"],
    ["source", "source script.sh", "source is not allowed"],
    [". (dot)", ". ./script.sh", ". is not allowed"],
    ["alias", "alias ls=rm", "alias is not allowed"],
    ["trap", "trap 'rm x' EXIT", "trap is not allowed"],
    ["a variable command name", "$X -rf /", "shell expansion"],
    ["a braced variable command name", `\${X} x`, "shell expansion"],
    ["a glob command name", "/usr/bin/r? x", "shell expansion"],
    ["an assigning parameter expansion", `ls \${LD_PRELOAD=/tmp/x.so}`, "assign"],
    ["command substitution in an unquoted here-document", "cat <<EOF\n$(rm x)\nEOF", "command substitution"],
    ["a here-string (a syntax error in dash)", "cat <<< x", "syntax error"],
    ["an unmatched single quote", "ls 'x", "unterminated quoted string"],
    ["an unmatched double quote", 'ls "x', "unterminated quoted string"],
    ["a NUL byte", "ls\0", "NUL"],
    ["an absolute path outside the bin directories", "/tmp/rm x", "by path"],
    ["a relative path", "./ls", "by path"],
    ["a path that climbs", "/usr/bin/../../tmp/ls", "by path"],
    ["an allowed name in a non-standard directory", "/workspace/bin/ls", "by path"],
    ["a standard path to a program not listed", "/usr/bin/rm x", "rm is not in"],
    ["PATH assignment", "PATH=/tmp ls", "setting PATH"],
    ["LD_PRELOAD assignment", "LD_PRELOAD=/tmp/x.so ls", "setting LD_PRELOAD"],
    ["a pager assignment", "GIT_PAGER='rm -rf /' git log", "setting GIT_PAGER"],
    ["export PATH", "export PATH=/tmp:$PATH; ls", "setting PATH"],
    ["read IFS", "read IFS", "setting IFS"],
    ["for over PATH", "for PATH in /tmp; do ls; done", "setting PATH"],
    ["sh -c with an inner program not listed", "sh -c 'rm -rf /'", "rm is not in"],
    ["sh -c nested inside sh -c", "sh -c \"sh -c 'rm x'\"", "rm is not in"],
    ["bash when only sh is listed", "bash -c ls", "bash is not in"],
    ["sh running a script file", "sh script.sh", "script file"],
    ["sh reading stdin", "echo rm | sh", "standard input"],
    ["sh -s", "sh -s", "not allowed"],
    ["sh as a login shell", "sh -l -c ls", "not allowed"],
    ["sh -c with an expanded string", 'sh -c "$CMD"', "shell expansion"],
    ["env running a program not listed", "env rm x", "rm is not in"],
    ["env with assignments first", "env A=1 B=2 rm x", "rm is not in"],
    ["env -S", "env -S 'rm x'", "-S is not supported"],
    ["env setting PATH", "env PATH=/tmp ls", "setting PATH"],
    ["env with an unquoted expansion", "env $OPTS ls", "shell expansion"],
    ["xargs running a program not listed", "ls | xargs rm", "rm is not in"],
    ["xargs with options", "ls | xargs -0 -n 1 rm", "rm is not in"],
    ["xargs with an inner pattern-restricted program", "xargs git status", "not known in advance"],
    ["xargs through another wrapper to a pattern-restricted program", "xargs timeout 5 git log", "not known"],
    [
      "find -exec through a wrapper to a pattern-restricted program",
      "find . -exec nice git log {} ';'",
      "not known",
    ],
    ["an empty command name", '"" ls', "empty command name"],
    ["xargs sh -c with inner program not listed", "xargs sh -c 'rm $1'", "rm is not in"],
    ["find -exec", "find . -exec rm {} \\;", "rm is not in"],
    ["find -execdir", "find . -execdir rm {} +", "rm is not in"],
    ["find -ok", "find . -ok rm {} ';'", "rm is not in"],
    ["find -exec whose ; the shell consumed", "find . -exec rm {} ; ls", "terminating"],
    ["bash brace expansion as the command", "{rm,-rf,/}", "shell expansion"],
    ["brace expansion in pattern-restricted arguments", "git log{,x} --output=x", "shell expansion"],
    ["a tilde in pattern-restricted arguments", "git diff ~/x", "shell expansion"],
    ["find -exec sh -c", "find . -exec sh -c 'rm x' \\;", "rm is not in"],
    ["find -exec without a terminator", "find . -exec rm {}", "terminating"],
    ["find with an unquoted glob", "find . -name *.py", "quote or spell them out"],
    ["command", "command rm x", "rm is not in"],
    ["builtin (a program, not a dash builtin)", "builtin eval x", "builtin is not in"],
    ["exec", "exec rm x", "rm is not in"],
    ["nohup", "nohup rm x", "rm is not in"],
    ["timeout", "timeout 5 rm x", "rm is not in"],
    ["timeout with options", "timeout -k 1 5 rm x", "rm is not in"],
    ["nice", "nice -n 10 rm x", "rm is not in"],
    ["nice -N", "nice -10 rm x", "rm is not in"],
    ["time", "time rm x", "rm is not in"],
    ["sudo", "sudo rm x", "rm is not in"],
    ["sudo -s", "sudo -s", "-s is not supported"],
    ["sudo with an assignment", "sudo -u root rm x", "rm is not in"],
    ["busybox", "busybox rm x", "rm is not in"],
    ["busybox sh (ash, not dash)", "busybox sh -c 'ls'", "not dash"],
    ["an uncheckable runner even when listed", "watch rm x", "watch runs another command"],
    ["a wrapper not listed", "stdbuf -o0 ls", "stdbuf is not in"],
    ["git arguments outside args_allow", "git push", "match none of the patterns"],
    ["git arguments matching args_deny", "git log --output=x", "a pattern the allowlist denies"],
    ["npm arguments matching args_deny", "npm publish", "denies"],
    ["pattern-restricted arguments using expansion", "git log $X", "shell expansion"],
    ["pattern-restricted arguments using a glob", "git diff *", "shell expansion"],
    ["a wrapper running a pattern-restricted program with denied arguments", "timeout 5 git push", "git"],
    ["an if body", "if ls; then rm x; fi", "rm is not in"],
    ["a while body", "while true; do rm x; done", "rm is not in"],
    ["a quoted keyword used as a command", "'if' x", "if is not in"],
    ["a case arm", "case x in a) rm;; esac", "rm is not in"],
  ])("%s", (_label, command, reason) => {
    const result = checkCommand(rules, command);
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.reason).toContain(reason);
  });
});

describe("checkCommand with no rules", () => {
  it("leaves every command unrestricted", () => {
    expect(checkCommand([], "rm -rf / $(anything) `at all`")).toEqual({ allowed: true });
  });
});

describe("checkCommand with explicit rules for builtins and shells", () => {
  it("applies argument patterns to a builtin a rule names", () => {
    const echoRules: AllowlistRule[] = [{ command: "echo", args_allow: ["^hi$"], args_deny: [] }];
    expect(checkCommand(echoRules, "echo hi")).toEqual({ allowed: true });
    expect(checkCommand(echoRules, "echo bye").allowed).toBe(false);
  });

  it("checks the sh -c string against the rules even when sh itself has argument patterns", () => {
    const shellRules: AllowlistRule[] = [{ command: "sh", args_allow: ["^-c "], args_deny: [] }, "ls"];
    expect(checkCommand(shellRules, "sh -c 'ls -l'")).toEqual({ allowed: true });
    expect(checkCommand(shellRules, "sh -c 'ls; rm x'").allowed).toBe(false);
  });

  it("lets any rule for the same command permit the arguments", () => {
    const twoRules: AllowlistRule[] = [
      { command: "git", args_allow: ["^status$"], args_deny: [] },
      { command: "git", args_allow: ["^log$"], args_deny: [] },
    ];
    expect(checkCommand(twoRules, "git status")).toEqual({ allowed: true });
    expect(checkCommand(twoRules, "git log")).toEqual({ allowed: true });
    expect(checkCommand(twoRules, "git push").allowed).toBe(false);
  });
});

// Each string below ran `id` (or would have) while the analysis allowed it, or is a reading of
// dash's grammar that the analysis once got wrong. /bin/sh in the sandboxes is dash.
describe("checkCommand reads commands as dash does", () => {
  const idRules: AllowlistRule[] = ["ls", "cat", "true"];
  it.each([
    [
      "`&>` is `&` then `>` in dash, so the word after the file is a command",
      "true &>/dev/null id >&2",
      "id",
    ],
    ["`&>>` is `&` then `>>`", "true &>>f id", "id"],
    [
      "a for loop without `in` runs its body over the positional parameters",
      "set -- 1; for i do id; done",
      "id",
    ],
    ["a for loop with `;` and no `in`", "set -- 1; for i; do id; done", "id"],
    ["a for loop with `in` on the next line", "for i\nin a; do id; done", "id"],
    ["a while condition", "while id; do ls; done", "id"],
    ["an until body", "until ls; do id; done", "id"],
    ["an elif condition", "if ls; then ls; elif id; then ls; fi", "id"],
    ["an else branch", "if ls; then ls; else id; fi", "id"],
    ["a case arm after the first", "case a in b) ls;; (a|c) id;; esac", "id"],
    ["a subshell after a redirection", "ls >f; (id) 2>&1", "id"],
    ["a function body that is a subshell", "ls() (id); ls", "id"],
    ["a function body that is a simple command", "ls() id", "id"],
    ["a brace group on several lines", "{\nls\nid\n}", "id"],
    ["`!` before a command", "! id", "id"],
    ["a keyword that is an argument, not a command", "ls if; id", "id"],
    ["`12>` is the word 12 and `>`: only one digit is a file descriptor", "ls 12>f; id", "id"],
    ["a backslash-newline inside `&&`", "ls &\\\n& id", "id"],
    ["a backslash-newline inside a name", "i\\\nd", "id"],
    ["a here-document ends only at its exact delimiter, then commands follow", "cat <<E\nE \nE\nid", "id"],
    ["a here-document with <<- strips tabs before the delimiter", "cat <<-E\n\tE\nid", "id"],
    ["two here-documents on one line are read in order", "cat <<A; cat <<B\nA\nB\nid", "id"],
    ["command substitution in an unquoted here-document", "cat <<E\n$(id)\nE", "command substitution"],
    ["backticks in an unquoted here-document", "cat <<E\n`id`\nE", "backticks"],
    ["$'…' (dash 0.5.12 reads `$` then a quoted string, 0.5.13 ANSI-C quoting)", "$'id'", "$'…'"],
    ["an assigning parameter expansion in a default value", `ls \${x:=id}`, "parameter expansions"],
    ["a blank outside ASCII (dash 0.5.13 splits words on it)", "ls\u3000id", "outside ASCII"],
    ["bash -c, whose grammar differs from dash's", "bash -c 'ls'", "bash"],
    ["exec runs the program echo, not the builtin", "exec echo hi", "echo is not in"],
    ["exec of a builtin that is no program", "exec cd /", "cd is not in"],
    ["a here-document delimiter outside the BMP ends the document", "cat <<\u{1F600}\n\u{1F600}\nid", "id"],
    ["lone surrogates, which reach dash as the same U+FFFD", "cat <<\ud83d\n\ud83e\nid", "well-formed"],
  ])("%s", (_label, command, reason) => {
    const result = checkCommand([...idRules, "bash"], command);
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.reason).toContain(reason);
  });

  it.each([
    ["a wrapper program runs the program true, not the builtin", "env true", "true is not in"],
    ["xargs without a command runs the program echo", "ls | xargs", "echo is not in"],
    ["a program named exec does not exist to run ls", "env exec ls", "exec is not in"],
  ])("%s", (_label, command, reason) => {
    const result = checkCommand(["ls", "env", "xargs"], command);
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.reason).toContain(reason);
  });

  it.each([
    "command echo hi",
    "command true && exec ls",
    "ls &>/dev/null",
    "cat <<'E'\n$(id) `id`\nE",
    "cat <<E\nid\nE",
    "cat <<-E\n\tid\n\tE\nls",
    "ls 12>f",
    "for i in a b; do ls $i; done",
    "case $x in a) ls;; esac",
    "ls\\\n -l",
  ])("allows %j", (command) => {
    expect(checkCommand(idRules, command)).toEqual({ allowed: true });
  });
});
