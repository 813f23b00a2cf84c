/**
 * The primitive file access of one sandbox pod, done with exec: one small POSIX shell script
 * (GNU coreutils and findutils in the image) resolves the path with `realpath -m` inside the pod,
 * refuses anything whose real location leaves the roots, then stats, lists, reads or writes.
 *
 * The check is for consistency with the local runtime rather than a security boundary: the
 * script runs with the sandbox user's rights, which `exec` grants the caller anyway. Hard links
 * cannot point outside a root because every root is its own mount (link(2) fails across mounts).
 */

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
  exec find "$real" -mindepth 1 -maxdepth 1 -printf "$format";;
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
*) exit 1;;
esac`;

export type FileCommand = (options: {
  argv: string[];
  stdin?: Uint8Array;
  stdoutLimit: number;
}) => Promise<PodCommandResult>;

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
    number: number,
    stdoutLimit: number,
    stdin?: Uint8Array,
  ) => {
    const argv = ["/bin/sh", "-c", fileScript, "cairn-files", operation, path, String(number), ...roots];
    const result = await run({ argv, stdin, stdoutLimit });
    if (result.exitCode !== 0 || result.timedOut) throw failure(result, path);
    return result;
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
    async writeFile(path, content) {
      const bytes = Buffer.from(content, "utf8");
      const output = (await call("write", path, bytes.length, 1024, bytes)).stdout.toString("utf8");
      const [created, size] = output.split("\t");
      return { created: created === "1", size: Number(size) };
    },
    list: (path) => listing("list", path, 0),
    walk: (path, limit) => listing("walk", path, limit),
  };
}
