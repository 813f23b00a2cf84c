/**
 * sed and awk under an allowlist: accounts allow them as text tools, but their program text can
 * start other programs (sed's `e` command and `s///e` flag; awk's system(), pipes to and from
 * commands, gawk's @load and indirect calls). This module finds their program text among the
 * arguments and scans it. Anything it cannot parse is refused rather than guessed at: a wrong
 * guess would let a command through unseen.
 */

import { scanAwk, scanSed } from "./script-scanners.ts";
import type { ShellWord } from "./shell-lexer.ts";

/** The value is not known before the shell runs: a parameter expansion, glob, brace or tilde. */
export const isOpaque = (word: ShellWord): boolean => word.expands || word.unquotedExpansion;

/**
 * Whether the shell could turn this word into an option (or a +command): it may split into
 * several words, or its fixed start is empty or a dash. `./*` cannot; `*` can (a file named
 * `--compress-program=sh` is the classic tar and sort wildcard injection).
 */
export function mayBeOption(word: ShellWord): boolean {
  if (word.splits) return true;
  if (!isOpaque(word)) return false;
  const fixed = word.value.slice(0, word.fixedPrefixLength);
  return fixed === "" || fixed.startsWith("-") || fixed.startsWith("+");
}

type OptionRole = "flag" | "value" | "attached-value" | "script" | { refuse: string };

interface ScriptLanguage {
  short: Record<string, OptionRole>;
  long: Record<string, OptionRole>;
  /** Returns what in the program text can start another program, or null. */
  scan: (script: string) => string | null;
}

const fromFile = { refuse: "reads its program from a file, which cannot be checked" };

const sed: ScriptLanguage = {
  short: { ...roles("nsuzbErE", "flag"), e: "script", f: fromFile, i: "attached-value", l: "value" },
  long: {
    ...roles(
      "quiet silent debug posix separate sandbox unbuffered null-data zero-terminated binary regexp-extended follow-symlinks help version",
      "flag",
    ),
    expression: "script",
    file: fromFile,
    "in-place": "attached-value",
    "line-length": "value",
  },
  scan: (script) => scanSed(script),
};

const awk: ScriptLanguage = {
  short: {
    ...roles("bcCghIkMnOPrsStV", "flag"),
    ...roles("dDLop", "attached-value"),
    F: "value",
    v: "value",
    e: "script",
    f: fromFile,
    E: fromFile,
    i: { refuse: "includes program text from a file, which cannot be checked" },
    l: { refuse: "loads a compiled extension, which can run anything" },
    W: { refuse: "-W options (mawk -W exec, gawk -W source/load) cannot be checked" },
  },
  long: {
    ...roles(
      "characters-as-bytes traditional copyright gen-pot help trace csv bignum non-decimal-data optimize posix re-interval no-optimize lint-old version sandbox use-lc-numeric",
      "flag",
    ),
    ...roles("dump-variables debug lint pretty-print profile", "attached-value"),
    "field-separator": "value",
    assign: "value",
    source: "script",
    file: fromFile,
    exec: fromFile,
    include: { refuse: "includes program text from a file, which cannot be checked" },
    load: { refuse: "loads a compiled extension, which can run anything" },
  },
  scan: (script) => scanAwk(script),
};

export const scriptLanguages: ReadonlyMap<string, ScriptLanguage> = new Map([
  ...["sed", "gsed"].map((name) => [name, sed] as const),
  ...["awk", "gawk", "mawk", "nawk", "original-awk"].map((name) => [name, awk] as const),
]);

function roles(names: string, role: OptionRole): Record<string, OptionRole> {
  const letters = names.includes(" ") ? names.split(" ") : [...names];
  return Object.fromEntries(letters.map((name) => [name, role]));
}

/** Returns the reason to refuse, or null when the program text starts no other program. */
export function checkScriptProgram(name: string, language: ScriptLanguage, args: ShellWord[]): string | null {
  const scripts: string[] = [];
  const operands: ShellWord[] = [];
  let hasScriptOption = false;
  let endOfOptions = false;
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index];
    if (endOfOptions || (!word.value.startsWith("-") && !mayBeOption(word)) || word.value === "-") {
      operands.push(word);
      continue;
    }
    if (mayBeOption(word)) {
      return `an argument of ${name} uses shell expansion and could become an option that runs a program; spell it out (for file names, ./* instead of *)`;
    }
    if (word.value === "--") {
      endOfOptions = true;
      continue;
    }
    const parsed = word.value.startsWith("--")
      ? parseLong(language, word.value)
      : parseShort(language, word.value);
    if ("reason" in parsed) return `${name} ${parsed.reason}`;
    let value = parsed.attached;
    if (parsed.role !== "flag" && parsed.role !== "attached-value" && value === undefined) {
      index += 1;
      if (index >= args.length) break; // the program itself reports the missing value
      if (parsed.role === "script" && isOpaque(args[index])) return opaqueScript(name);
      value = args[index].value;
    }
    if (parsed.role === "script") {
      hasScriptOption = true;
      scripts.push(value ?? "");
    }
  }
  if (!hasScriptOption) {
    const program = operands.shift();
    if (program === undefined) return null;
    if (isOpaque(program)) return opaqueScript(name);
    scripts.push(program.value);
  }
  // sed joins its -e scripts with newlines; awk's -e texts are concatenated the same way.
  const found = language.scan(scripts.join("\n"));
  return found === null ? null : `${name} ${found}; not allowed while an allowlist is set`;
}

const opaqueScript = (name: string): string =>
  `the program text of ${name} uses shell expansion, so what it runs cannot be checked`;

type ParsedOption = { role: OptionRole; attached?: string } | { reason: string };

function parseLong(language: ScriptLanguage, value: string): ParsedOption {
  const equals = value.indexOf("=");
  const typed = value.slice(2, equals < 0 ? undefined : equals);
  // GNU getopt accepts any unambiguous abbreviation; an exact name wins over longer ones.
  const candidates = Object.keys(language.long).filter((option) => option.startsWith(typed));
  const option = candidates.includes(typed) ? typed : candidates.length === 1 ? candidates[0] : undefined;
  if (option === undefined) {
    return {
      reason: `option --${typed} is ${candidates.length > 1 ? "ambiguous" : "not supported"} when an allowlist is set`,
    };
  }
  const role = language.long[option];
  if (typeof role === "object") return { reason: `--${option} ${role.refuse}` };
  return { role, attached: equals < 0 ? undefined : value.slice(equals + 1) };
}

function parseShort(language: ScriptLanguage, value: string): ParsedOption {
  for (let position = 1; position < value.length; position += 1) {
    const letter = value[position];
    const role = Object.hasOwn(language.short, letter) ? language.short[letter] : undefined;
    if (role === undefined) return { reason: `option -${letter} is not supported when an allowlist is set` };
    if (typeof role === "object") return { reason: `-${letter} ${role.refuse}` };
    if (role === "flag") continue;
    const rest = value.slice(position + 1);
    return { role, attached: rest === "" ? undefined : rest };
  }
  return { role: "flag" };
}
