/**
 * The grep file operation (docs/api.md#files): a regex search over the files below a path. Problems
 * with the search itself (an invalid regex or glob, the time budget running out) come back in
 * `error` rather than as a failed request, so an agent sees what it found so far. Files are read
 * here and matched in batches by pattern tasks (core/ports/pattern-work.ts), on RE2's linear-time
 * engine and, in the Node server, off the event loop; the budget covers the reading, the waiting
 * for a turn and the matching.
 */

import { ServiceError } from "../../errors.ts";
import { PatternTimeout, type RunPatternTask, runPatternTaskInline } from "../../ports/pattern-work.ts";
import type { FileStat, SandboxFileSystem } from "../../ports/sandbox-runtime.ts";
import type { LineMatch } from "../patterns/pattern-tasks.ts";
import { invalidField, maxViewBytes, maxWalkEntries, relativeTo, statOrNotFound } from "./file-entries.ts";
import { resolveSandboxPath } from "./paths.ts";

export type GrepMatch = LineMatch;

export interface GrepResult {
  matches: GrepMatch[];
  error: string | null;
  truncated: boolean;
}

export interface GrepOptions {
  /** Where the patterns run (the account's pattern work); in process unless given. */
  run?: RunPatternTask;
  /** Milliseconds clock; Date.now unless a test injects one. */
  now?: () => number;
  /** When the budget began, on `now`'s clock (before waiting for a turn to walk); now unless given. */
  started?: number;
  budgetMs?: number;
  /** Longer lines are cut to this many characters in results (they are still searched whole). */
  maxLineLength?: number;
  /** Files larger than this are skipped. */
  maxFileBytes?: number;
  /** Characters of text sent to one matching task (a larger file goes alone); 1 Mi. */
  batchCharacters?: number;
}

export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string | null;
  max_matches?: number;
}

const skippedReadErrors: readonly string[] = ["not_found", "path_outside_sandbox", "validation_error"];

export async function grepFiles(
  files: SandboxFileSystem,
  input: GrepInput,
  options: GrepOptions = {},
): Promise<GrepResult> {
  const run = options.run ?? runPatternTaskInline;
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? 10_000;
  const maxLineLength = options.maxLineLength ?? 500;
  const maxFileBytes = options.maxFileBytes ?? maxViewBytes;
  const batchCharacters = options.batchCharacters ?? 1024 * 1024;
  const maxMatches = input.max_matches ?? 500;
  if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > 5000) {
    throw invalidField("max_matches", "max_matches must be an integer from 1 to 5000");
  }
  if (input.pattern.length === 0) throw invalidField("pattern", "pattern must not be empty");
  const root = resolveSandboxPath(input.path ?? "/", files.roots());
  const started = options.started ?? now();
  const remaining = (): number => budgetMs - (now() - started);
  const timedOut = (matches: GrepMatch[]): GrepResult => ({
    matches,
    error: `search stopped after ${budgetMs / 1000} s; narrow path or glob`,
    truncated: true,
  });

  // The pattern is checked before any file is read, so a bad one is reported as such.
  // Waiting for a turn behind the account's other tasks counts against the budget here too.
  const checked = await run(
    "grepLines",
    { pattern: input.pattern, files: [], maxMatches: 1, maxLineLength },
    Math.max(remaining(), 1),
  ).catch(rethrowUnlessTimeout);
  if (checked === null) return timedOut([]);
  if (checked.error !== null) return { matches: [], error: checked.error, truncated: false };

  const rootStat = await statOrNotFound(files, root);
  // A root that is a link inside the sandbox is followed: the walk reports canonical paths below
  // rootStat.path, so the glob is matched relative to that. The walk itself follows no link.
  const base = rootStat.path;
  const candidates = (rootStat.isDirectory ? await files.walk(base, maxWalkEntries) : [rootStat]).filter(
    (entry) => !entry.isDirectory && entry.size <= maxFileBytes,
  );
  const selection = await run(
    "selectPaths",
    {
      glob: input.glob || null,
      mode: "filter",
      subjects: candidates.map((entry) => relativeTo(base, entry.path) || baseName(entry.path)),
      paths: candidates.map((entry) => entry.path),
    },
    Math.max(remaining(), 1),
  ).catch(rethrowUnlessTimeout);
  if (selection === null) return timedOut([]);
  if ("error" in selection) return { matches: [], error: "invalid glob", truncated: false };

  const matches: GrepMatch[] = [];
  let outOfTime = false;
  let batch: Array<{ path: string; content: string }> = [];
  let batchSize = 0;
  // Matches the batch; false when the budget ran out or one match past the limit was found.
  const flush = async (): Promise<boolean> => {
    if (batch.length === 0) return true;
    const wanted = maxMatches + 1 - matches.length;
    const found = await run(
      "grepLines",
      { pattern: input.pattern, files: batch, maxMatches: wanted, maxLineLength },
      Math.max(remaining(), 1),
    ).catch(rethrowUnlessTimeout);
    batch = [];
    batchSize = 0;
    if (found !== null) matches.push(...found.matches);
    outOfTime = found === null;
    return !outOfTime && matches.length <= maxMatches;
  };
  const reads = readAhead(
    files,
    selection.selected.map((index) => candidates[index]),
  );
  for (let read = reads.next(); read !== null; read = reads.next()) {
    outOfTime = remaining() <= 0;
    if (outOfTime) break;
    const { file, content } = await read;
    if (content === null) continue;
    batch.push({ path: file.path, content });
    batchSize += content.length;
    if (batchSize >= batchCharacters && !(await flush())) break;
  }
  if (!outOfTime && matches.length <= maxMatches) await flush();
  // One match past the limit proves there are more: only then is the result truncated.
  if (matches.length > maxMatches)
    return { matches: matches.slice(0, maxMatches), error: null, truncated: true };
  return outOfTime ? timedOut(matches) : { matches, error: null, truncated: false };
}

// Files read ahead of the one being batched: a sandbox's files are read one path component at a
// time (the runtime follows no link), so reading one after another spent most of a grep waiting.
const readAheadFiles = 16;
const readAheadBytes = 4 * 1024 * 1024;

/** The files' contents in order, up to 16 files or 4 MiB read ahead (at least one file). */
function readAhead(files: SandboxFileSystem, entries: FileStat[]) {
  const pending: Array<Promise<{ file: FileStat; content: string | null; error?: unknown }>> = [];
  let next = 0;
  let pendingBytes = 0;
  const fill = () => {
    while (
      next < entries.length &&
      pending.length < readAheadFiles &&
      (pending.length === 0 || pendingBytes + entries[next].size <= readAheadBytes)
    ) {
      const file = entries[next++];
      pendingBytes += file.size;
      // A failure is held until its turn, so one read ahead and then left unread rejects nothing.
      pending.push(
        readIfFile(files, file).then(
          (content) => ({ file, content }),
          (error) => ({ file, content: null, error }),
        ),
      );
    }
  };
  return {
    next(): Promise<{ file: FileStat; content: string | null }> | null {
      fill();
      const first = pending.shift();
      if (first === undefined) return null;
      return first.then((read) => {
        pendingBytes -= read.file.size;
        if (read.error !== undefined) throw read.error;
        return read;
      });
    },
  };
}

function rethrowUnlessTimeout(error: unknown): null {
  if (error instanceof PatternTimeout) return null;
  throw error;
}

/**
 * Reads a file for searching; null for files that vanished, escape the sandbox, or cannot be
 * read as a regular file (a FIFO, or a file a concurrent exec swapped for a directory or a link
 * to one since the walk): one such file must not fail the whole search.
 */
async function readIfFile(files: SandboxFileSystem, file: FileStat): Promise<string | null> {
  try {
    return await files.readFile(file.path, maxViewBytes);
  } catch (error) {
    if (error instanceof ServiceError && skippedReadErrors.includes(error.code)) return null;
    throw error;
  }
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
