/**
 * The work whose cost a tenant chooses through a pattern: grep's line matching, glob's name
 * matching, an exec command's allowlist check, and the broker's search of a response for the
 * granted secrets (a 1 MiB body and 50 secrets take over 100 ms). Each task is a pure function of plain data,
 * so the Node server runs it on a pattern thread (platform/pattern-threads.ts) and anything else
 * may run it in process (core/ports/pattern-work.ts). Every regular expression in them is RE2's
 * (linear time); a task's size is bounded by its caller (a batch of at most ~1 MiB of text plus
 * one file, the walk's 20,000 entries, a 1 MiB command).
 */
import { type CommandCheck, checkCommand } from "../allowlist/allowlist.ts";
import { type AllowlistRule, invalidPatternOf } from "../allowlist/allowlist-rules.ts";
import { createRedactor } from "../broker/secret-redaction.ts";
import { createGlobFilter, createGlobMatcher } from "../files/glob.ts";
import { compileUserPattern } from "../files/linear-regex.ts";

export interface LineMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepLinesInput {
  pattern: string;
  files: Array<{ path: string; content: string }>;
  /** Stop after this many matches (the caller asks for one more than it returns). */
  maxMatches: number;
  /** Matching lines are cut to this many characters in results (they are searched whole). */
  maxLineLength: number;
}

/** Matching lines of text files, in order; a file holding a NUL byte is binary and passed over. */
function grepLines(input: GrepLinesInput): { matches: LineMatch[]; error: string | null } {
  const compiled = compileUserPattern(input.pattern);
  if (!compiled.ok) return { matches: [], error: `invalid regular expression: ${compiled.reason}` };
  const matches: LineMatch[] = [];
  for (const file of input.files) {
    if (file.content.includes("\0")) continue;
    const lines = file.content.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (let index = 0; index < lines.length; index += 1) {
      const text = lines[index].endsWith("\r") ? lines[index].slice(0, -1) : lines[index];
      if (!compiled.regex.test(text)) continue;
      matches.push({ path: file.path, line: index + 1, text: text.slice(0, input.maxLineLength) });
      if (matches.length === input.maxMatches) return { matches, error: null };
    }
  }
  return { matches, error: null };
}

export interface SelectPathsInput {
  /** Null selects every entry. */
  glob: string | null;
  /** "path" matches the glob against the whole subject; "filter" is grep's rule (createGlobFilter). */
  mode: "path" | "filter";
  /** What the glob is matched against, one per entry. */
  subjects: string[];
  /** The entries' canonical paths, for the order of the answer. */
  paths: string[];
}

/** The indexes of the entries whose subject matches, ordered by path; an error for a bad glob. */
function selectPaths(input: SelectPathsInput): { selected: number[] } | { error: string } {
  let matches: (subject: string) => boolean = () => true;
  if (input.glob !== null) {
    try {
      matches = (input.mode === "filter" ? createGlobFilter : createGlobMatcher)(input.glob);
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  const selected: number[] = [];
  for (let index = 0; index < input.subjects.length; index++) {
    if (matches(input.subjects[index])) selected.push(index);
  }
  const { paths } = input;
  selected.sort((left, right) => (paths[left] < paths[right] ? -1 : paths[left] > paths[right] ? 1 : 0));
  return { selected };
}

function checkAllowlist(input: { rules: AllowlistRule[]; command: string }): CommandCheck {
  return checkCommand(input.rules, input.command);
}

function invalidAllowlistPattern(input: { rules: AllowlistRule[]; inputIndexes: number[] }) {
  return invalidPatternOf(input.rules, input.inputIndexes);
}

export interface RedactResponseInput {
  values: string[];
  headers: Record<string, string>;
  body: string;
  /** The body was cut at the size cap (secret-redaction.ts, cutAtEnd). */
  truncated: boolean;
}

/** A broker response with every granted secret's forms replaced, in header names, values and the body. */
function redactResponse(input: RedactResponseInput): { headers: Record<string, string>; body: string } {
  const redact = createRedactor(input.values);
  const headers: Record<string, string> = {};
  // A name can carry a secret as well as a value can.
  for (const [name, value] of Object.entries(input.headers)) headers[redact(name)] = redact(value);
  return { headers, body: redact(input.body, { cutAtEnd: input.truncated }) };
}

export const patternTasks = {
  grepLines,
  selectPaths,
  checkAllowlist,
  invalidAllowlistPattern,
  redactResponse,
};

export type PatternTaskName = keyof typeof patternTasks;
export type PatternTaskInput<Name extends PatternTaskName> = Parameters<(typeof patternTasks)[Name]>[0];
export type PatternTaskOutput<Name extends PatternTaskName> = ReturnType<(typeof patternTasks)[Name]>;
