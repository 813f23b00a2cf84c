/**
 * The primitive file access of one sandbox pod, done with exec: one small POSIX shell script
 * (GNU coreutils and findutils in the image) resolves the path with `realpath -m` inside the pod,
 * refuses anything whose real location leaves the roots, then stats, lists, reads or writes.
 *
 * The check is for consistency with the local runtime rather than a security boundary: the
 * script runs with the sandbox user's rights, which `exec` grants the caller anyway. Hard links
 * cannot point outside a root because every root is its own mount (link(2) fails across mounts).
 */

import { randomBytes } from "node:crypto";
import { ServiceError } from "../../core/index.ts";
import type { FileStat, SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import type { PodCommandResult } from "./pod-exec.ts";

// Exit codes of the script; anything else is a runtime failure.
const exitOutside = 3;
const exitMissing = 4;
const exitIsDirectory = 5;
const exitNotDirectory = 6;
const exitNotRegularFile = 7;
const exitParentNotDirectory = 8;
const exitTooLarge = 9;

/** Arguments: operation, path, a number (bytes or a limit), then the roots. */
export const fileScript = `set -u
op=$1; target=$2; number=$3; shift 3
real=$(realpath -m -- "$target") || exit 1
inside=no
for root do
  resolved=$(realpath -m -- "$root") || continue
  case $real in "$resolved"|"$resolved"/*) inside=yes; break;; esac
done
[ "$inside" = yes ] || exit ${exitOutside}
format='%y\\t%s\\t%T@\\t%p\\0'
case $op in
stat)
  [ -e "$real" ] || exit ${exitMissing}
  exec find "$real" -maxdepth 0 -printf "$format";;
list)
  [ -e "$real" ] || exit ${exitMissing}
  [ -d "$real" ] || exit ${exitNotDirectory}
  find "$real" -mindepth 1 -maxdepth 1 -printf "$format" | head -z -n "$number"
  exit 0;;
walk)
  [ -e "$real" ] || exit ${exitMissing}
  [ -d "$real" ] || exit ${exitNotDirectory}
  find "$real" -mindepth 1 ! -type l -printf "$format" | head -z -n "$number"
  exit 0;;
read)
  [ -e "$real" ] || exit ${exitMissing}
  [ -d "$real" ] && exit ${exitIsDirectory}
  [ -f "$real" ] || exit ${exitNotRegularFile}
  [ "$(stat -c %s -- "$real")" -le "$number" ] || exit ${exitTooLarge}
  exec head -c "$number" -- "$real";;
write)
  [ -d "$real" ] && exit ${exitIsDirectory}
  created=0; [ -e "$real" ] || created=1
  mkdir -p -- "$(dirname -- "$real")" 2>/dev/null || exit ${exitParentNotDirectory}
  head -c "$number" > "$real" || exit 1
  printf '%s\\t%s' "$created" "$(stat -c %s -- "$real")";;
range)
  [ -e "$real" ] || exit ${exitMissing}
  [ -d "$real" ] && exit ${exitIsDirectory}
  [ -f "$real" ] || exit ${exitNotRegularFile}
  offset=\${number%:*}; count=\${number#*:}
  tail -c +$((offset + 1)) -- "$real" | head -c "$count"
  exit 0;;
begin)
  [ -d "$real" ] && exit ${exitIsDirectory}
  mkdir -p -- "$(dirname -- "$real")" 2>/dev/null || exit ${exitParentNotDirectory}
  : > "$(dirname -- "$real")/.cairn-upload-$number" || exit 1;;
append)
  token=\${number%:*}; count=\${number#*:}
  head -c "$count" >> "$(dirname -- "$real")/.cairn-upload-$token" || exit 1;;
commit)
  upload="$(dirname -- "$real")/.cairn-upload-$number"
  [ -d "$real" ] && { rm -f -- "$upload"; exit ${exitIsDirectory}; }
  created=0; [ -e "$real" ] || created=1
  [ "$created" = 0 ] && chmod --reference="$real" -- "$upload" 2>/dev/null
  mv -f -- "$upload" "$real" || exit 1
  printf '%s\\t%s' "$created" "$(stat -c %s -- "$real")";;
abort)
  rm -f -- "$(dirname -- "$real")/.cairn-upload-$number"
  exit 0;;
*) exit 1;;
esac`;

export type FileCommand = (options: {
  argv: string[];
  stdin?: Uint8Array;
  stdoutLimit: number;
}) => Promise<PodCommandResult>;

/** How many bytes one exec of a streamed read or write carries. */
const streamChunkBytes = 8 * 1024 * 1024;

const emptyResult: PodCommandResult = {
  exitCode: 0,
  stdout: Buffer.alloc(0),
  stderr: Buffer.alloc(0),
  truncated: false,
  timedOut: false,
};

/** Listings are cut at this many bytes of find output (about 150 000 entries). */
const listingLimitBytes = 32 * 1024 * 1024;

export function parseEntries(output: Buffer): FileStat[] {
  const entries: FileStat[] = [];
  for (const record of output.toString("utf8").split("\0")) {
    if (record === "") continue;
    // The path is last and may itself hold tabs.
    const [type, size, modified] = record.split("\t", 3);
    const path = record.slice(type.length + size.length + modified.length + 3);
    entries.push({
      path,
      isDirectory: type === "d",
      size: Number(size),
      modifiedAt: new Date(Math.round(Number(modified) * 1000)),
    });
  }
  return entries;
}

function failure(result: PodCommandResult, path: string): ServiceError {
  switch (result.exitCode) {
    case exitOutside:
      return new ServiceError("path_outside_sandbox", "Path resolves outside the sandbox", {
        details: { path },
      });
    case exitMissing:
      return new ServiceError("not_found", "File not found", { details: { path } });
    case exitIsDirectory:
      return new ServiceError("validation_error", "Path is a directory", { details: { path } });
    case exitNotDirectory:
      return new ServiceError("validation_error", "Path is not a directory", { details: { path } });
    case exitNotRegularFile:
      return new ServiceError("validation_error", "Path is not a regular file", { details: { path } });
    case exitParentNotDirectory:
      return new ServiceError("validation_error", "A parent of the path is not a directory", {
        details: { path },
      });
    case exitTooLarge:
      return new ServiceError("validation_error", "File is larger than the allowed size", {
        details: { path },
      });
    default:
      return new ServiceError("sandbox_operation_failed", "Sandbox file operation failed", {
        cause: new Error(
          `file script exited ${result.exitCode}${result.timedOut ? " (timed out)" : ""}: ${result.stderr.toString("utf8").slice(0, 2000)}`,
        ),
      });
  }
}

export function createPodFileSystem(roots: string[], run: FileCommand): SandboxFileSystem {
  const call = async (
    operation: string,
    path: string,
    number: number | string,
    stdoutLimit: number,
    stdin?: Uint8Array,
  ) => {
    const argv = ["/bin/sh", "-c", fileScript, "cairn-files", operation, path, String(number), ...roots];
    const result = await run({ argv, stdin, stdoutLimit });
    if (result.exitCode !== 0 || result.timedOut) throw failure(result, path);
    return result;
  };
  const write = async (path: string, bytes: Uint8Array) => {
    const output = (await call("write", path, bytes.length, 1024, bytes)).stdout.toString("utf8");
    const [created, size] = output.split("\t");
    return { created: created === "1", size: Number(size) };
  };
  const listing = async (operation: "list" | "walk", path: string, limit: number) => {
    const result = await call(operation, path, limit, listingLimitBytes);
    if (result.truncated) throw failure({ ...result, exitCode: -1 }, path);
    return parseEntries(result.stdout);
  };

  return {
    roots: () => [...roots],
    async stat(path) {
      try {
        const [entry] = parseEntries((await call("stat", path, 0, 64 * 1024)).stdout);
        return entry ?? null;
      } catch (error) {
        if (error instanceof ServiceError && error.code === "not_found") return null;
        throw error;
      }
    },
    async readFile(path, maxBytes) {
      return (await call("read", path, maxBytes, maxBytes)).stdout.toString("utf8");
    },
    async readBytes(path, maxBytes) {
      return (await call("read", path, maxBytes, maxBytes)).stdout;
    },
    async readStream(path, maxBytes) {
      const [entry] = parseEntries((await call("stat", path, 0, 64 * 1024)).stdout);
      if (entry === undefined) throw failure({ ...emptyResult, exitCode: exitMissing }, path);
      if (entry.isDirectory) throw failure({ ...emptyResult, exitCode: exitIsDirectory }, path);
      if (entry.size > maxBytes) throw failure({ ...emptyResult, exitCode: exitTooLarge }, path);
      const size = entry.size;
      // A range per pull, each its own exec: the pod's output is never held past one chunk.
      const range = async (offset: number) => {
        const count = Math.min(streamChunkBytes, size - offset);
        const bytes = (await call("range", path, `${offset}:${count}`, count)).stdout;
        if (bytes.length !== count) throw new Error(`${path} changed size while it was read`);
        return bytes;
      };
      // The first range before answering, so a file that cannot be read is refused up front.
      const first = size === 0 ? Buffer.alloc(0) : await range(0);
      let offset = first.length;
      const stream = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            if (first.length > 0) controller.enqueue(first);
            if (offset >= size) controller.close();
          },
          async pull(controller) {
            const bytes = await range(offset);
            offset += bytes.length;
            controller.enqueue(bytes);
            if (offset >= size) controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      return { size, stream };
    },
    async writeFile(path, content) {
      return write(path, Buffer.from(content, "utf8"));
    },
    writeBytes: (path, content) => write(path, content),
    async writeStream(path, content, maxBytes) {
      // Appended a chunk per exec to a temporary file beside the target (the exec API cannot
      // close a command's stdin, so each command reads a known length), then renamed over it.
      const token = randomBytes(8).toString("hex");
      await call("begin", path, token, 1024);
      const reader = content.getReader();
      try {
        const pending: Uint8Array[] = [];
        let pendingBytes = 0;
        let total = 0;
        // Appends the first `length` pending bytes: 8 MiB per exec however the body arrives (an
        // in-process request may hand over the whole body as one chunk).
        const append = async (length: number) => {
          const joined = Buffer.concat(pending, pendingBytes);
          const chunk = joined.subarray(0, length);
          pending.length = 0;
          if (length < joined.length) pending.push(joined.subarray(length));
          pendingBytes = joined.length - length;
          await call("append", path, `${token}:${chunk.length}`, 1024, chunk);
        };
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          total += value.length;
          if (total > maxBytes) {
            throw new ServiceError("payload_too_large", `Request body is larger than ${maxBytes} bytes`, {
              details: { max_bytes: maxBytes },
            });
          }
          pending.push(value);
          pendingBytes += value.length;
          while (pendingBytes >= streamChunkBytes) await append(streamChunkBytes);
        }
        if (pendingBytes > 0) await append(pendingBytes);
        const [created, size] = (await call("commit", path, token, 1024)).stdout.toString("utf8").split("\t");
        return { created: created === "1", size: Number(size) };
      } catch (error) {
        await reader.cancel().catch(() => {});
        await call("abort", path, token, 1024).catch(() => {});
        throw error;
      } finally {
        reader.releaseLock();
      }
    },
    // One entry past the limit, so the caller can tell there are more.
    list: (path, limit) => listing("list", path, limit + 1),
    walk: (path, limit) => listing("walk", path, limit),
  };
}
