/**
 * Shared pieces of the file operations: limits, the API's directory entry shape, and the
 * validation error that names one request field.
 */

import { ServiceError } from "../../errors.ts";
import type { FileStat, SandboxFileSystem } from "../../ports/sandbox-runtime.ts";

export const maxContentCharacters = 10 * 1024 * 1024;
/** The most bytes a base64 `content` may decode to (file_create). */
export const maxContentBytes = 10 * 1024 * 1024;
export const maxViewBytes = 25 * 1024 * 1024;
/** How many entries glob and grep walk at most below their root. */
export const maxWalkEntries = 20_000;
export const maxGlobMatches = 1_000;
/** How many entries ls and a directory's view list at most. */
export const maxListEntries = 20_000;

export interface DirectoryEntry {
  path: string;
  is_dir: boolean;
  size: number;
  modified_at: string;
}

/**
 * A validation failure about one input field, as every validation_error reads (CONTRACT §5):
 * "Invalid request", and a detail naming the field with a message that says what to change.
 */
export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError("validation_error", "Invalid request", {
    details: [{ type: "value_error", loc: [field], msg: message }],
  });
}

export function toDirectoryEntry(stat: FileStat): DirectoryEntry {
  return {
    path: stat.isDirectory ? `${stat.path}/` : stat.path,
    is_dir: stat.isDirectory,
    size: stat.size,
    modified_at: stat.modifiedAt.toISOString(),
  };
}

export const byPath = (left: { path: string }, right: { path: string }): number =>
  left.path < right.path ? -1 : left.path > right.path ? 1 : 0;

export async function statOrNotFound(files: SandboxFileSystem, path: string): Promise<FileStat> {
  const stat = await files.stat(path);
  if (stat === null) throw new ServiceError("not_found", `No such file or directory: ${path}`);
  return stat;
}

/**
 * A directory's entries, refused past maxListEntries with a 422 naming `path`: what the server
 * holds, sorts and sends for one listing is bounded, whatever the sandbox put in the directory.
 */
export async function listEntries(files: SandboxFileSystem, path: string): Promise<FileStat[]> {
  const children = await files.list(path, maxListEntries);
  if (children.length > maxListEntries)
    throw invalidField(
      "path",
      `${path} holds more than ${maxListEntries} entries; list a directory below it, or use glob or exec (ls | head)`,
    );
  return children;
}

/** Path of an entry relative to the search root ("" for the root itself). */
export function relativeTo(root: string, path: string): string {
  return path === root ? "" : path.slice(root.length + 1);
}
