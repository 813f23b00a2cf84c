/**
 * The raw byte routes of docs/api.md#raw-files: a file's bytes in and out as streams, never held
 * whole, over the SandboxFileSystem port like the other file operations (paths resolved the
 * same way, so the same 403 path_outside_sandbox).
 */
import type { SandboxFileSystem } from "../../ports/sandbox-runtime.ts";
import { invalidField, statOrNotFound } from "./file-entries.ts";
import { resolveSandboxPath } from "./paths.ts";

/** The most bytes one raw upload may carry (100 MiB); more is 413 payload_too_large. */
export const maxRawUploadBytes = 100 * 1024 * 1024;

/** Writes the stream to the file; the old file stays until every byte has arrived. */
export async function uploadFile(
  files: SandboxFileSystem,
  input: { path: string; body: ReadableStream<Uint8Array> },
): Promise<{ path: string; size: number; created: boolean }> {
  const path = resolveSandboxPath(input.path, files.roots());
  const existing = await files.stat(path);
  if (existing?.isDirectory) throw invalidField("path", `${path} is a directory`);
  const written = await files.writeStream(path, input.body, maxRawUploadBytes);
  return { path, size: written.size, created: written.created };
}

/** The file's bytes as a stream with their number; a download has no size limit of its own. */
export async function downloadFile(
  files: SandboxFileSystem,
  input: { path: string },
): Promise<{ path: string; size: number; stream: ReadableStream<Uint8Array> }> {
  const path = resolveSandboxPath(input.path, files.roots());
  const stat = await statOrNotFound(files, path);
  if (stat.isDirectory) throw invalidField("path", `${path} is a directory, not a file`);
  const opened = await files.readStream(path, Number.MAX_SAFE_INTEGER);
  return { path, ...opened };
}
