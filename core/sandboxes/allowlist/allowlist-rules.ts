/**
 * The rules of the per-account command allowlist (docs/api.md#command-allowlist) as a client stores them:
 * validating PUT /v1/account/allowed-commands, with one error code per kind of mistake.
 * allowlist.ts checks exec commands against the stored rules.
 */

import { ServiceError } from "../../errors.ts";
import { compileUserPattern } from "../files/linear-regex.ts";

export interface AllowlistRuleObject {
  command: string;
  args_allow: string[];
  args_deny: string[];
}

/** A bare command name allows any arguments; an object restricts them with regexes. */
export type AllowlistRule = string | AllowlistRuleObject;

export const maxCommandNameLength = 200;
export const maxPatternLength = 200;

// A rule names a program as the shell would look it up: no paths, spaces or shell syntax.
const commandNamePattern = /^[^\s/$`'"\\;&|<>(){}*?=#~\p{Cc}]+$/u;

const invalidRules = (message: string, details?: unknown): ServiceError =>
  new ServiceError("invalid_rules", message, { details });

/**
 * Validates the `rules` of PUT /v1/account/allowed-commands and returns them as stored: names
 * trimmed, bare strings kept as strings, objects completed with empty pattern lists. An entry
 * that is not a valid rule is left out (CONTRACT: `invalid_rules` when nothing valid is left), so
 * the stored list allows less than was sent, never more: a rule with a malformed `args_deny` is
 * dropped whole, not kept without it. The answer's `rules` show what was kept. A pattern that is
 * too long fails the whole request, as does one that does not compile (`invalidPatternOf`, which
 * compiles, runs as a pattern task: compiling a 200-character RE2 pattern can take 100 ms).
 */
export function parseAllowlistRules(input: unknown, maxRules = 50): AllowlistRule[] {
  return readAllowlistRules(input, maxRules).rules;
}

/** parseAllowlistRules, with each kept rule's index in the request (for naming a bad pattern). */
export function readAllowlistRules(
  input: unknown,
  maxRules = 50,
): { rules: AllowlistRule[]; inputIndexes: number[] } {
  if (!Array.isArray(input)) {
    throw invalidRules("rules must be a list of command names or {command, args_allow, args_deny} objects");
  }
  if (input.length === 0) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [
        {
          type: "too_short",
          loc: ["rules"],
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
  const kept: AllowlistRule[] = [];
  const inputIndexes: number[] = [];
  const dropped: ServiceError[] = [];
  for (const [index, entry] of input.entries()) {
    try {
      kept.push(parseRule(entry, index));
      inputIndexes.push(index);
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === "invalid_rules")) throw error;
      dropped.push(error);
    }
  }
  if (kept.length === 0) {
    throw invalidRules(`No valid rule: ${dropped.map((error) => error.message).join("; ")}`, {
      invalid: dropped.map((error) => ({ message: error.message, ...(error.details as object) })),
    });
  }
  return { rules: kept, inputIndexes };
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
  if (!Array.isArray(value))
    throw invalidRules(`rules[${ruleIndex}].${field} must be a list of regexes`, { index: ruleIndex });
  return value.map((pattern, patternIndex) => {
    const where = `rules[${ruleIndex}].${field}[${patternIndex}]`;
    const details = { rule_index: ruleIndex, field, pattern_index: patternIndex };
    if (typeof pattern !== "string") throw invalidRules(`${where} must be a string`, details);
    if (pattern.length > maxPatternLength) {
      throw new ServiceError("pattern_too_long", `${where} is longer than ${maxPatternLength} characters`, {
        details: { ...details, limit: maxPatternLength },
      });
    }
    return pattern;
  });
}

export interface InvalidPattern {
  message: string;
  details: { rule_index: number; field: string; pattern_index: number; reason: string };
}

/** The first stored pattern that does not compile, named by its place (never its text), or null. */
export function invalidPatternOf(
  rules: readonly AllowlistRule[],
  inputIndexes: readonly number[] = rules.map((_, index) => index),
): InvalidPattern | null {
  for (const [keptIndex, rule] of rules.entries()) {
    if (typeof rule === "string") continue;
    const ruleIndex = inputIndexes[keptIndex];
    for (const field of ["args_allow", "args_deny"] as const) {
      for (const [patternIndex, pattern] of rule[field].entries()) {
        const compiled = compileUserPattern(pattern);
        if (compiled.ok) continue;
        return {
          message: `rules[${ruleIndex}].${field}[${patternIndex}] is not a valid regular expression: ${compiled.reason}`,
          details: { rule_index: ruleIndex, field, pattern_index: patternIndex, reason: compiled.reason },
        };
      }
    }
  }
  return null;
}

/** parseAllowlistRules, then `invalid_pattern` for the first pattern that does not compile. */
export function parseAndCompileAllowlistRules(input: unknown, maxRules = 50): AllowlistRule[] {
  const { rules, inputIndexes } = readAllowlistRules(input, maxRules);
  const invalid = invalidPatternOf(rules, inputIndexes);
  if (invalid) throw new ServiceError("invalid_pattern", invalid.message, { details: invalid.details });
  return rules;
}
