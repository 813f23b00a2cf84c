/**
 * The grep file operation (docs/api.md#files): a regex search over the files below a path. Problems
 * with the search itself (an invalid regex or glob, the time budget running out) come back in
 * `error` rather than as a failed request, so an agent sees what it found so far. The budget is
 * checked between files and every few hundred lines against an injected clock; a single regex
 * match cannot be interrupted, which is why nested repetition is refused up front.
 */

import { ServiceError } from "../../errors.ts";
import type { FileStat, SandboxFileSystem } from "../../ports/sandbox-runtime.ts";
import { invalidField, maxViewBytes, maxWalkEntries, relativeTo, statOrNotFound } from "./file-entries.ts";
import { createGlobFilter } from "./glob.ts";
import { resolveSandboxPath } from "./paths.ts";
import { compileUserPattern } from "./regex-safety.ts";

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  error: string | null;
  truncated: boolean;
}

export interface GrepOptions {
  /** Milliseconds clock; Date.now unless a test injects one. */
  now?: () => number;
  budgetMs?: number;
  /** Longer lines are cut to this many characters in results (they are still searched whole). */
  maxLineLength?: number;
  /** Files larger than this are skipped. */
  maxFileBytes?: number;
}

export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string | null;
  max_matches?: number;
}

const linesBetweenClockChecks = 256;
const skippedReadErrors: readonly string[] = ["not_found", "path_outside_sandbox", "validation_error"];

export async function grepFiles(
  files: SandboxFileSystem,
  input: GrepInput,
  options: GrepOptions = {},
): Promise<GrepResult> {
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? 10_000;
  const maxLineLength = options.maxLineLength ?? 500;
  const maxFileBytes = options.maxFileBytes ?? maxViewBytes;
  const maxMatches = input.max_matches ?? 500;
  if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > 5000) {
    throw invalidField("max_matches", "max_matches must be an integer from 1 to 5000");
  }
  if (input.pattern.length === 0) throw invalidField("pattern", "pattern must not be empty");
  const root = resolveSandboxPath(input.path ?? "/", files.roots());

  const compiled = compileUserPattern(input.pattern);
  if (!compiled.ok) return { matches: [], error: compiled.reason, truncated: false };
  let globFilter: ((relativePath: string) => boolean) | null = null;
  if (input.glob) {
    try {
      globFilter = createGlobFilter(input.glob);
    } catch {
      return { matches: [], error: "invalid glob", truncated: false };
    }
  }

  const rootStat = await statOrNotFound(files, root);
  // A root that is a link inside the sandbox is followed: the walk reports canonical paths below
  // rootStat.path, so the glob is matched relative to that. The walk itself follows no link.
  const base = rootStat.path;
  const candidates = rootStat.isDirectory ? await files.walk(base, maxWalkEntries) : [rootStat];
  const searched = candidates
    .filter((entry) => !entry.isDirectory && entry.size <= maxFileBytes)
    .filter(
      (entry) => globFilter === null || globFilter(relativeTo(base, entry.path) || baseName(entry.path)),
    )
    .sort((left, right) => (left.path < right.path ? -1 : 1));

  const started = now();
  const overBudget = (): boolean => now() - started > budgetMs;
  const timedOut = (matches: GrepMatch[]): GrepResult => ({
    matches,
    error: `search stopped after ${budgetMs / 1000} s; narrow path or glob`,
    truncated: true,
  });
  const matches: GrepMatch[] = [];
  for (const file of searched) {
    if (overBudget()) return timedOut(matches);
    const content = await readIfText(files, file);
    if (content === null) continue;
    const lines = content.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (let index = 0; index < lines.length; index += 1) {
      if (index > 0 && index % linesBetweenClockChecks === 0 && overBudget()) return timedOut(matches);
      const text = lines[index].endsWith("\r") ? lines[index].slice(0, -1) : lines[index];
      if (!compiled.regex.test(text)) continue;
      // One match past the limit proves there are more: only then is the result truncated.
      if (matches.length === maxMatches) return { matches, error: null, truncated: true };
      matches.push({ path: file.path, line: index + 1, text: text.slice(0, maxLineLength) });
    }
  }
  return { matches, error: null, truncated: false };
}

/**
 * Reads a file for searching; null for files that vanished, escape the sandbox, look binary, or
 * cannot be read as a regular file (a FIFO, or a file a concurrent exec swapped for a directory
 * or a link to one since the walk): one such file must not fail the whole search.
 */
async function readIfText(files: SandboxFileSystem, file: FileStat): Promise<string | null> {
  let content: string;
  try {
    content = await files.readFile(file.path, maxViewBytes);
  } catch (error) {
    if (error instanceof ServiceError && skippedReadErrors.includes(error.code)) return null;
    throw error;
  }
  return content.includes("\0") ? null : content;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
