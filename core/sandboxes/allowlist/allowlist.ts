/**
 * The per-account command allowlist (docs/sandboxes.md#command-allowlist): checking an exec command
 * against the rules a client stored (allowlist-rules.ts validates them). Exec runs the command
 * through `/bin/sh -c` (dash), so the check parses it with dash's grammar (shell-parser.ts) and
 * checks every program each part of it would start, inside compound commands and function bodies
 * too, including programs started through wrappers (env, xargs, sh -c, find -exec, …) and through
 * options of allowed programs (sort --compress-program, tar -I, git -c: program-options.ts).
 * Anything it cannot analyse is refused with a reason; the reason becomes the 403 message.
 * ALLOWLIST.md describes what the check covers and what it cannot.
 */

import { compileUserPattern, type LinearRegex } from "../files/linear-regex.ts";
import type { AllowlistRule } from "./allowlist-rules.ts";
import {
  isDangerousVariable,
  transparentBuiltins,
  type Unwrapped,
  uncheckableRunners,
  wrapperPrograms,
} from "./command-wrappers.ts";
import { checkProgramOptions } from "./program-options.ts";
import type { ShellWord } from "./shell-lexer.ts";
import { parseShell, type SimpleCommand } from "./shell-parser.ts";

export {
  type AllowlistRule,
  type AllowlistRuleObject,
  maxCommandNameLength,
  maxPatternLength,
  parseAllowlistRules,
  parseAndCompileAllowlistRules,
  readAllowlistRules,
} from "./allowlist-rules.ts";

export type CommandCheck = { allowed: true } | { allowed: false; reason: string };

interface CompiledRule {
  allow: LinearRegex[];
  deny: LinearRegex[];
}

type RuleIndex = Map<string, CompiledRule[]>;

function indexRules(rules: readonly AllowlistRule[]): RuleIndex {
  const index: RuleIndex = new Map();
  for (const rule of rules) {
    const name = typeof rule === "string" ? rule : rule.command;
    const compile = (patterns: string[]): LinearRegex[] | null => {
      const compiled = patterns.map(compileUserPattern);
      return compiled.every((entry) => entry.ok)
        ? compiled.flatMap((entry) => (entry.ok ? [entry.regex] : []))
        : null;
    };
    const allow = typeof rule === "string" ? [] : compile(rule.args_allow);
    const deny = typeof rule === "string" ? [] : compile(rule.args_deny);
    // A stored rule whose patterns no longer compile permits nothing rather than everything.
    if (allow === null || deny === null) continue;
    index.set(name, [...(index.get(name) ?? []), { allow, deny }]);
  }
  return index;
}

export type CommandAnalysis =
  | { allowed: true; programs: string[] }
  | { allowed: false; reason: string; programs: string[] };

/** Checks an exec command against the rules. Empty rules mean unrestricted. */
export function checkCommand(rules: readonly AllowlistRule[], command: string): CommandCheck {
  const analysis = analyseCommand(rules, command);
  return analysis.allowed ? { allowed: true } : { allowed: false, reason: analysis.reason };
}

/**
 * checkCommand, also naming every program the check looked at (including those inside wrappers
 * and `sh -c`), so a test can compare them with what the shell really starts.
 */
export function analyseCommand(rules: readonly AllowlistRule[], command: string): CommandAnalysis {
  if (rules.length === 0) return { allowed: true, programs: [] };
  const context: CheckContext = { rules: indexRules(rules), programs: [] };
  const failure = checkScript(context, command, 0);
  return failure === null
    ? { allowed: true, programs: context.programs }
    : { allowed: false, reason: failure, programs: context.programs };
}

interface CheckContext {
  rules: RuleIndex;
  /** Every program name looked at so far, in order. */
  programs: string[];
}

const maxDepth = 8;

/** Returns null when every program the script would start is allowed, else the reason. */
function checkScript(context: CheckContext, source: string, depth: number): string | null {
  if (depth > maxDepth) return "commands are nested too deeply to check";
  const parsed = parseShell(source);
  if (!parsed.ok) return `${parsed.reason} when an allowlist is set`;
  for (const variable of parsed.loopVariables) {
    if (isDangerousVariable(variable)) return `setting ${variable} is not allowed when an allowlist is set`;
  }
  for (const command of parsed.commands) {
    const failure = checkSimpleCommand(context, command, depth);
    if (failure !== null) return failure;
  }
  return null;
}

/** Refused even when listed: they run strings as code, redefine commands or evaluate arithmetic. */
const neverAllowed = new Set(
  "eval source . alias trap fc hash enable let declare typeset mapfile readarray coproc function select case esac in { } [[ ]] ((".split(
    " ",
  ),
);
/** Shell builtins that start no program; allowed without a rule unless a rule names them. */
const harmlessBuiltins = new Set(
  "cd pwd true false : exit return shift wait break continue echo printf test [ set export unset read readonly local umask getopts".split(
    " ",
  ),
);
const standardBinDirectories = /^\/(usr\/(local\/)?)?s?bin\/([^/]+)$/;

function checkSimpleCommand(context: CheckContext, command: SimpleCommand, depth: number): string | null {
  for (const assignment of command.assignments) {
    const name = assignment.value.slice(0, assignment.value.indexOf("="));
    if (isDangerousVariable(name)) return `setting ${name} is not allowed when an allowlist is set`;
  }
  if (command.words.length === 0) return null;
  return checkInvocation(context, command.words, { argsKnown: true, byShell: true }, depth);
}

interface InvocationKind {
  /** False when a wrapper adds arguments that are unknown here (xargs input, find's `{}`). */
  argsKnown: boolean;
  /**
   * Run by the shell itself, so a builtin runs as a builtin. A wrapper program, `exec` and
   * `xargs` with no command start a program of that name instead (`exec echo` runs /usr/bin/echo).
   */
  byShell: boolean;
}

function checkInvocation(
  context: CheckContext,
  words: ShellWord[],
  { argsKnown, byShell }: InvocationKind,
  depth: number,
): string | null {
  if (depth > maxDepth) return "commands are nested too deeply to check";
  const [program, ...args] = words;
  if (!program.quoted && !program.expands && neverAllowed.has(program.value)) {
    return `${program.value} is not allowed when an allowlist is set`;
  }
  // A lone `[` is the test builtin, not a glob.
  if (program.expands || (program.unquotedExpansion && program.value !== "[")) {
    return `the command name ${JSON.stringify(program.value)} uses shell expansion, so the program it runs cannot be checked`;
  }
  if (program.value === "") return "an empty command name cannot be checked";
  const name = programName(program.value);
  if (name === null) {
    return `${JSON.stringify(program.value)} runs a program by path; only programs in the standard bin directories (/bin, /usr/bin, /usr/local/bin and their sbin) can be checked`;
  }
  context.programs.push(name);
  if (neverAllowed.has(name)) return `${name} is not allowed when an allowlist is set`;
  if (uncheckableRunners.has(name)) {
    return `${name} runs another command that the allowlist cannot check, so it is not allowed`;
  }
  const transparent = byShell ? transparentBuiltins.get(name) : undefined;
  // `command` runs builtins as builtins; `exec` replaces the shell with a program.
  if (transparent) return checkUnwrapped(context, transparent(args), argsKnown, name === "command", depth);

  const rulesForName = context.rules.get(name);
  if (!rulesForName) {
    if (byShell && harmlessBuiltins.has(name)) return checkBuiltinVariables(name, args);
    return `${name} is not in the command allowlist`;
  }
  const verdict = checkArguments(name, rulesForName, args, argsKnown);
  if (!verdict.allowed) return verdict.reason;
  // Arguments an args_allow pattern accepts are the account's explicit choice (ALLOWLIST.md).
  if (!verdict.byPattern) {
    const optionFailure = checkProgramOptions(name, args, argsKnown);
    if (optionFailure !== null) return optionFailure;
  }
  if (harmlessBuiltins.has(name)) return checkBuiltinVariables(name, args);
  const wrapper = wrapperPrograms.get(name);
  return wrapper ? checkUnwrapped(context, wrapper(args, name), argsKnown, false, depth) : null;
}

/** `argsKnown` false means unknown arguments are appended, and they reach the innermost command. */
function checkUnwrapped(
  context: CheckContext,
  unwrapped: Unwrapped,
  argsKnown: boolean,
  byShell: boolean,
  depth: number,
): string | null {
  if (unwrapped.kind === "refuse") return unwrapped.reason;
  for (const invocation of unwrapped.invocations) {
    const kind = { argsKnown: argsKnown && invocation.argsKnown, byShell };
    const failure = checkInvocation(context, invocation.words, kind, depth + 1);
    if (failure !== null) return failure;
  }
  for (const script of unwrapped.scripts) {
    const failure = checkScript(context, script, depth + 1);
    if (failure !== null) return failure;
  }
  return null;
}

/** The name to match rules against: a bare name, or the basename of a standard bin path. */
function programName(value: string): string | null {
  if (value === "") return null;
  if (!value.includes("/")) return value;
  const match = standardBinDirectories.exec(value);
  return match ? match[3] : null;
}

/** export PATH=…, read IFS, printf -v PATH: builtins that set variables may not set dangerous ones. */
function checkBuiltinVariables(name: string, args: ShellWord[]): string | null {
  if (!["export", "unset", "read", "readonly", "local", "getopts", "printf"].includes(name)) return null;
  for (const argument of args) {
    const variable = argument.value.split("=")[0];
    if (isDangerousVariable(variable)) return `setting ${variable} is not allowed when an allowlist is set`;
    if (argument.unquotedExpansion && name !== "printf") {
      return `${name} with shell-expanded variable names cannot be checked`;
    }
  }
  return null;
}

type ArgumentsVerdict = { allowed: false; reason: string } | { allowed: true; byPattern: boolean };

/**
 * `byPattern` is true when a rule's args_allow pattern accepts these exact arguments: the account
 * then chose them, program-running options included, and the option table is not consulted.
 */
function checkArguments(
  name: string,
  rulesForName: CompiledRule[],
  args: ShellWord[],
  argsKnown: boolean,
): ArgumentsVerdict {
  const known = argsKnown && !args.some((argument) => argument.expands || argument.unquotedExpansion);
  const joined = args.map((argument) => argument.value).join(" ");
  const accepts = (rule: CompiledRule): boolean =>
    rule.allow.some((regex) => regex.test(joined)) && !rule.deny.some((regex) => regex.test(joined));
  if (known && rulesForName.some((rule) => rule.allow.length > 0 && accepts(rule))) {
    return { allowed: true, byPattern: true };
  }
  if (rulesForName.some((rule) => rule.allow.length === 0 && rule.deny.length === 0)) {
    return { allowed: true, byPattern: false };
  }
  if (!argsKnown) {
    return {
      allowed: false,
      reason: `${name} is allowed only with checked arguments, and the arguments it would receive here are not known in advance`,
    };
  }
  if (!known) {
    return {
      allowed: false,
      reason: `the arguments of ${name} use shell expansion ($, globs, braces or ~), which its argument patterns cannot check; quote or spell them out`,
    };
  }
  let denied = false;
  for (const rule of rulesForName) {
    const allowed = rule.allow.length === 0 || rule.allow.some((regex) => regex.test(joined));
    const isDenied = rule.deny.some((regex) => regex.test(joined));
    if (allowed && !isDenied) return { allowed: true, byPattern: false };
    denied ||= allowed && isDenied;
  }
  return {
    allowed: false,
    reason: denied
      ? `the arguments of ${name} match a pattern the allowlist denies`
      : `the arguments of ${name} match none of the patterns the allowlist allows`,
  };
}
