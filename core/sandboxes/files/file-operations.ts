/**
 * The file operations of docs/api.md#files, written once over the SandboxFileSystem port so every
 * runtime behaves the same. Inputs and outputs use the API's field names; every path is
 * resolved by resolveSandboxPath before the runtime sees it.
 */

import { PatternTimeout, type RunPatternTask, runPatternTaskInline } from "../../ports/pattern-work.ts";
import type { SandboxFileSystem } from "../../ports/sandbox-runtime.ts";
import { base64Length, decodeBase64, decodeUtf8, encodeBase64, type FileEncoding } from "./encodings.ts";
import {
  byPath,
  type DirectoryEntry,
  invalidField,
  listEntries,
  maxContentBytes,
  maxContentCharacters,
  maxGlobMatches,
  maxViewBytes,
  maxWalkEntries,
  relativeTo,
  statOrNotFound,
  toDirectoryEntry,
} from "./file-entries.ts";
import { resolveSandboxPath } from "./paths.ts";

/** A file's bytes for a whole-file read (view, str_replace): a file, at most 25 MiB. */
async function readFileBytes(files: SandboxFileSystem, path: string): Promise<Uint8Array> {
  const stat = await statOrNotFound(files, path);
  if (stat.isDirectory) throw invalidField("path", `${path} is a directory, not a file`);
  if (stat.size > maxViewBytes) throw invalidField("path", `${path} is larger than 25 MiB`);
  return files.readBytes(path, maxViewBytes);
}

/** A file's text; bytes that are not UTF-8 are refused (file_not_utf8), never replaced. */
async function readTextFile(files: SandboxFileSystem, path: string): Promise<string> {
  return decodeUtf8(await readFileBytes(files, path), path);
}

/**
 * Writes a file from the API's content: text (`utf-8`, at most 10 MiB characters, written as
 * UTF-8) or `base64`, whose decoded bytes (at most 10 MiB) are written exactly.
 */
export async function createFile(
  files: SandboxFileSystem,
  input: { path: string; content: string; encoding?: FileEncoding },
): Promise<{ path: string; size: number; created: boolean }> {
  const path = resolveSandboxPath(input.path, files.roots());
  let bytes: Uint8Array | null = null;
  if (input.encoding === "base64") {
    if (input.content.length > base64Length(maxContentBytes))
      throw invalidField("content", "content decodes to more than 10 MiB");
    bytes = decodeBase64(input.content, "content");
    if (bytes.length > maxContentBytes) throw invalidField("content", "content decodes to more than 10 MiB");
  } else if (input.content.length > maxContentCharacters) {
    throw invalidField("content", "content is larger than 10 MiB");
  }
  const existing = await files.stat(path);
  if (existing?.isDirectory) throw invalidField("path", `${path} is a directory`);
  const written =
    bytes === null ? await files.writeFile(path, input.content) : await files.writeBytes(path, bytes);
  return { path, size: written.size, created: written.created };
}

export interface ViewFileResult {
  /** The text, or with encoding "base64" the file's exact bytes in base64. */
  content: string;
  encoding: FileEncoding;
  /** The total number of lines in the file (not only those in view_range). */
  lines: number;
  is_directory: boolean;
  /** For a directory: its children's names, directories ending with "/", sorted. */
  entries: string[] | null;
}

/**
 * Where each line starts (a line keeps its "\n", so the text from one start to another is those
 * lines exactly), found with indexOf: a 25 MiB file is scanned, never split into an array of
 * strings (that held the event loop for over 100 ms).
 */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  for (let start = 0; start < text.length; ) {
    starts.push(start);
    const end = text.indexOf("\n", start);
    start = end === -1 ? text.length : end + 1;
  }
  return starts;
}

/** The number of lines in the bytes, counted as lineStarts counts them in text. */
function countLines(bytes: Uint8Array): number {
  let lines = 0;
  for (let index = bytes.indexOf(0x0a); index !== -1; index = bytes.indexOf(0x0a, index + 1)) lines += 1;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? lines + 1 : lines;
}

export async function viewFile(
  files: SandboxFileSystem,
  input: { path: string; view_range?: [number, number] | null; encoding?: FileEncoding },
): Promise<ViewFileResult> {
  const path = resolveSandboxPath(input.path, files.roots());
  const encoding = input.encoding ?? "utf-8";
  const stat = await statOrNotFound(files, path);
  if (stat.isDirectory) {
    const children = await listEntries(files, path);
    const entries = children
      .map((child) => child.path.slice(child.path.lastIndexOf("/") + 1) + (child.isDirectory ? "/" : ""))
      .sort();
    return { content: "", encoding, lines: 0, is_directory: true, entries };
  }
  if (encoding === "base64") {
    // Bytes have no lines to pick: a range is for text.
    if (input.view_range)
      throw invalidField("view_range", 'view_range is for text; leave it out with encoding "base64"');
    const bytes = await readFileBytes(files, path);
    return {
      content: encodeBase64(bytes),
      encoding,
      lines: countLines(bytes),
      is_directory: false,
      entries: null,
    };
  }
  const text = await readTextFile(files, path);
  const starts = lineStarts(text);
  const whole = { encoding, lines: starts.length, is_directory: false, entries: null };
  if (!input.view_range) return { content: text, ...whole };
  const [start, end] = input.view_range;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || (end !== -1 && end < start)) {
    throw invalidField(
      "view_range",
      "view_range must be [start, end] with 1 ≤ start ≤ end, or end = -1 for the end of the file",
    );
  }
  if (start > Math.max(starts.length, 1)) {
    throw invalidField(
      "view_range",
      `view_range starts at line ${start}, but ${path} has ${starts.length} lines`,
    );
  }
  const from = starts[start - 1] ?? text.length;
  const to = end === -1 || end >= starts.length ? text.length : starts[end];
  return { content: text.slice(from, to), ...whole };
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index >= 0; index = text.indexOf(search, index + search.length)) {
    count += 1;
  }
  return count;
}

export async function strReplace(
  files: SandboxFileSystem,
  input: { path: string; old_str: string; new_str: string; replace_all?: boolean },
): Promise<{ path: string; replaced: number; occurrences: number }> {
  const path = resolveSandboxPath(input.path, files.roots());
  if (input.old_str.length === 0) throw invalidField("old_str", "old_str must not be empty");
  const content = await readTextFile(files, path);
  const occurrences = countOccurrences(content, input.old_str);
  if (occurrences === 0) throw invalidField("old_str", `old_str not found in ${path}`);
  if (occurrences > 1 && !input.replace_all) {
    throw invalidField(
      "old_str",
      `old_str occurs ${occurrences} times in ${path}; make it unique or pass replace_all`,
    );
  }
  let updated: string;
  if (input.replace_all) {
    updated = content.split(input.old_str).join(input.new_str);
  } else {
    const index = content.indexOf(input.old_str);
    updated = content.slice(0, index) + input.new_str + content.slice(index + input.old_str.length);
  }
  if (updated.length > maxViewBytes)
    throw invalidField("new_str", "the edited file would be larger than 25 MiB");
  await files.writeFile(path, updated);
  return { path, replaced: input.replace_all ? occurrences : 1, occurrences };
}

export async function listDirectory(
  files: SandboxFileSystem,
  input: { path?: string },
): Promise<{ entries: DirectoryEntry[] }> {
  const path = resolveSandboxPath(input.path ?? "/", files.roots());
  const stat = await statOrNotFound(files, path);
  const children = stat.isDirectory ? await listEntries(files, path) : [stat];
  return { entries: children.map(toDirectoryEntry).sort(byPath) };
}

/** How long glob's matching may take (it is linear in the names, at most 20,000 of them). */
const globMatchMs = 10_000;

export async function globFiles(
  files: SandboxFileSystem,
  input: { pattern: string; path?: string },
  run: RunPatternTask = runPatternTaskInline,
): Promise<{ matches: DirectoryEntry[] }> {
  const root = resolveSandboxPath(input.path ?? "/", files.roots());
  if (input.pattern.length === 0) throw invalidField("pattern", "pattern must not be empty");
  const glob = input.pattern.startsWith("/") ? input.pattern.slice(1) : input.pattern;
  const select = async (subjects: string[], paths: string[]): Promise<number[]> => {
    const selection = await run("selectPaths", { glob, mode: "path", subjects, paths }, globMatchMs).catch(
      (error: unknown) => {
        if (!(error instanceof PatternTimeout)) throw error;
        throw invalidField("pattern", "matching took longer than 10 s; narrow path or pattern");
      },
    );
    if ("error" in selection)
      throw invalidField("pattern", `pattern is not a valid glob: ${selection.error}`);
    return selection.selected;
  };
  await select([], []);
  const stat = await statOrNotFound(files, root);
  // A root that is a link inside the sandbox is followed; the walk reports canonical paths below
  // stat.path and follows no link itself, so links met below the root are not matched.
  const base = stat.path;
  // An absolute pattern is matched against the whole path, a relative one below the root.
  const subject = (path: string): string =>
    input.pattern.startsWith("/")
      ? path.slice(1)
      : relativeTo(base, path) || path.slice(path.lastIndexOf("/") + 1);
  const candidates = (stat.isDirectory ? await files.walk(base, maxWalkEntries) : [stat]).filter(
    (entry) => !entry.isDirectory,
  );
  const selected = await select(
    candidates.map((entry) => subject(entry.path)),
    candidates.map((entry) => entry.path),
  );
  return { matches: selected.slice(0, maxGlobMatches).map((index) => toDirectoryEntry(candidates[index])) };
}

export { base64Length, type FileEncoding, fileEncodings } from "./encodings.ts";
export {
  type DirectoryEntry,
  invalidField,
  maxContentBytes,
  maxContentCharacters,
  maxViewBytes,
} from "./file-entries.ts";
export { type GrepMatch, type GrepOptions, type GrepResult, grepFiles } from "./grep-files.ts";
