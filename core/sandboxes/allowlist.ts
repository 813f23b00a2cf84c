/**
 * The per-account command allowlist (CONTRACT §2.4): validating the rules a client stores, and
 * checking an exec command against them. Exec runs the command through `/bin/sh -c`, so the
 * check lexes it as a shell would and checks every program each part of it would start,
 * including programs started through wrappers (env, xargs, sh -c, find -exec, …) and through
 * options of allowed programs (sort --compress-program, tar -I, git -c: program-options.ts).
 * Anything it cannot analyse is refused with a reason; the reason becomes the 403 message.
 * ALLOWLIST.md describes what the check covers and what it cannot.
 */

import { ServiceError } from "../errors.ts";
import {
  assignmentPattern,
  isDangerousVariable,
  transparentBuiltins,
  type Unwrapped,
  uncheckableRunners,
  wrapperPrograms,
} from "./command-wrappers.ts";
import { checkProgramOptions } from "./program-options.ts";
import { compileUserPattern } from "./regex-safety.ts";
import { lexShell, type ShellWord } from "./shell-lexer.ts";

export interface AllowlistRuleObject {
  command: string;
  args_allow: string[];
  args_deny: string[];
}

/** A bare command name allows any arguments; an object restricts them with regexes. */
export type AllowlistRule = string | AllowlistRuleObject;

export type CommandCheck = { allowed: true } | { allowed: false; reason: string };

export const maxCommandNameLength = 200;
export const maxPatternLength = 200;

// A rule names a program as the shell would look it up: no paths, spaces or shell syntax.
const commandNamePattern = /^[^\s/$`'"\\;&|<>(){}*?=#~\p{Cc}]+$/u;

const invalidRules = (message: string, details?: unknown): ServiceError =>
  new ServiceError("invalid_rules", message, { details });

/**
 * Validates the `rules` of PUT /v1/account/allowed-commands and returns them as stored: names
 * trimmed, bare strings kept as strings, objects completed with empty pattern lists. Any
 * malformed entry fails the whole request (naming its index) rather than being dropped quietly.
 */
export function parseAllowlistRules(input: unknown, maxRules = 50): AllowlistRule[] {
  if (!Array.isArray(input)) {
    throw invalidRules("rules must be a list of command names or {command, args_allow, args_deny} objects");
  }
  if (input.length === 0) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [
        {
          type: "too_short",
          loc: ["body", "rules"],
          msg: "rules must not be empty; DELETE the allowlist to lift every restriction",
        },
      ],
    });
  }
  if (input.length > maxRules) {
    throw new ServiceError("too_many_rules", `At most ${maxRules} rules are allowed, got ${input.length}`, {
      details: { limit: maxRules },
    });
  }
  return input.map((entry, index) => parseRule(entry, index));
}

function parseCommandName(value: unknown, index: number): string {
  if (typeof value !== "string") throw invalidRules(`rules[${index}] has no command name`, { index });
  const name = value.trim();
  if (name.length < 1 || name.length > maxCommandNameLength) {
    throw invalidRules(`rules[${index}]: the command name must be 1–${maxCommandNameLength} characters`, {
      index,
    });
  }
  if (!commandNamePattern.test(name)) {
    throw invalidRules(
      `rules[${index}]: the command must be a program name without paths, spaces or shell characters`,
      { index },
    );
  }
  return name;
}

function parseRule(entry: unknown, index: number): AllowlistRule {
  if (typeof entry === "string") return parseCommandName(entry, index);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw invalidRules(`rules[${index}] must be a command name or an object with a command`, { index });
  }
  const record = entry as Record<string, unknown>;
  return {
    command: parseCommandName(record.command, index),
    args_allow: parsePatterns(record.args_allow, index, "args_allow"),
    args_deny: parsePatterns(record.args_deny, index, "args_deny"),
  };
}

function parsePatterns(value: unknown, ruleIndex: number, field: "args_allow" | "args_deny"): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRules(`rules[${ruleIndex}].${field} must be a list of regexes`);
  return value.map((pattern, patternIndex) => {
    const where = `rules[${ruleIndex}].${field}[${patternIndex}]`;
    const details = { rule_index: ruleIndex, field, pattern_index: patternIndex };
    if (typeof pattern !== "string") throw invalidRules(`${where} must be a string`, details);
    if (pattern.length > maxPatternLength) {
      throw new ServiceError("pattern_too_long", `${where} is longer than ${maxPatternLength} characters`, {
        details: { ...details, limit: maxPatternLength },
      });
    }
    const compiled = compileUserPattern(pattern);
    if (!compiled.ok) {
      const why = compiled.reason.startsWith("invalid")
        ? "is not a valid regular expression"
        : "nests repetition";
      throw new ServiceError("invalid_pattern", `${where} ${why}`, { details });
    }
    return pattern;
  });
}

interface CompiledRule {
  allow: RegExp[];
  deny: RegExp[];
}

type RuleIndex = Map<string, CompiledRule[]>;

function indexRules(rules: readonly AllowlistRule[]): RuleIndex {
  const index: RuleIndex = new Map();
  for (const rule of rules) {
    const name = typeof rule === "string" ? rule : rule.command;
    const compile = (patterns: string[]): RegExp[] | null => {
      const compiled = patterns.map(compileUserPattern);
      return compiled.every((entry) => entry.ok)
        ? compiled.map((entry) => (entry.ok ? entry.regex : /$^/))
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

/** Checks an exec command against the rules. Empty rules mean unrestricted. */
export function checkCommand(rules: readonly AllowlistRule[], command: string): CommandCheck {
  if (rules.length === 0) return { allowed: true };
  const failure = checkScript(indexRules(rules), command, 0);
  return failure === null ? { allowed: true } : { allowed: false, reason: failure };
}

const maxDepth = 8;
const separators = new Set([";", "&&", "||", "|", "|&", "&", "\n"]);
const redirections = new Set([">", ">>", "<", "<>", ">|", ">&", "<&", "&>", "&>>"]);

/** Returns null when every program the script would start is allowed, else the reason. */
function checkScript(rules: RuleIndex, source: string, depth: number): string | null {
  if (depth > maxDepth) return "commands are nested too deeply to check";
  const lexed = lexShell(source);
  if (!lexed.ok) return `${lexed.reason} when an allowlist is set`;
  let words: ShellWord[] = [];
  const tokens = [...lexed.tokens, { kind: "operator" as const, value: "\n" }];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token.kind === "word") {
      words.push(token);
      continue;
    }
    if (redirections.has(token.value)) {
      const target = tokens[index + 1];
      if (target?.kind !== "word") return `redirection ${token.value} has no target`;
      index += 1; // the target is a file name, not part of the command
      continue;
    }
    if (!separators.has(token.value)) return `the shell operator ${token.value} is not allowed`;
    const failure = checkSimpleCommand(rules, words, depth);
    if (failure !== null) return failure;
    words = [];
  }
  return null;
}

// Reserved words after which the next word is a command again.
const leadingKeywords = new Set(["!", "if", "then", "else", "elif", "do", "while", "until"]);
const closingKeywords = new Set(["fi", "done"]);
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

const isKeyword = (word: ShellWord | undefined, keywords: Set<string>): boolean =>
  word !== undefined && !word.quoted && !word.expands && keywords.has(word.value);

function checkSimpleCommand(rules: RuleIndex, words: ShellWord[], depth: number): string | null {
  let index = 0;
  while (isKeyword(words[index], leadingKeywords)) index += 1;
  if (isKeyword(words[index], closingKeywords)) {
    return index + 1 < words.length ? `unexpected words after ${words[index].value}` : null;
  }
  if (isKeyword(words[index], new Set(["for"]))) {
    const variable = words[index + 1]?.value ?? "";
    return isDangerousVariable(variable)
      ? `setting ${variable} is not allowed when an allowlist is set`
      : null;
  }
  while (index < words.length && isAssignment(words[index])) {
    const name = words[index].value.slice(0, words[index].value.indexOf("="));
    if (isDangerousVariable(name)) return `setting ${name} is not allowed when an allowlist is set`;
    index += 1;
  }
  if (index >= words.length) return null;
  return checkInvocation(rules, words.slice(index), true, depth);
}

function isAssignment(word: ShellWord): boolean {
  const equals = word.value.indexOf("=");
  return equals > 0 && equals < word.unquotedPrefixLength && assignmentPattern.test(word.value);
}

function checkInvocation(
  rules: RuleIndex,
  words: ShellWord[],
  argsKnown: boolean,
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
  if (neverAllowed.has(name)) return `${name} is not allowed when an allowlist is set`;
  if (uncheckableRunners.has(name)) {
    return `${name} runs another command that the allowlist cannot check, so it is not allowed`;
  }
  const transparent = transparentBuiltins.get(name);
  if (transparent) return checkUnwrapped(rules, transparent(args), argsKnown, depth);

  const rulesForName = rules.get(name);
  if (!rulesForName) {
    if (harmlessBuiltins.has(name)) return checkBuiltinVariables(name, args);
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
  return wrapper ? checkUnwrapped(rules, wrapper(args, name), argsKnown, depth) : null;
}

/** `argsKnown` false means unknown arguments are appended, and they reach the innermost command. */
function checkUnwrapped(
  rules: RuleIndex,
  unwrapped: Unwrapped,
  argsKnown: boolean,
  depth: number,
): string | null {
  if (unwrapped.kind === "refuse") return unwrapped.reason;
  for (const invocation of unwrapped.invocations) {
    const failure = checkInvocation(rules, invocation.words, argsKnown && invocation.argsKnown, depth + 1);
    if (failure !== null) return failure;
  }
  for (const script of unwrapped.scripts) {
    const failure = checkScript(rules, script, depth + 1);
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
