/**
 * SandboxFileSystem over the host directories of one sandbox. Paths are resolved in sandbox terms
 * first (path-resolution.ts); every operation then walks down from the root's directory one
 * component at a time through `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, so no symlink is ever
 * followed on the host, even one swapped in by a concurrent exec. Regular files with more than one
 * link are refused (a hard link could share an inode with a file outside), so are FIFOs and
 * devices; writes go to a temporary file in the same directory and are renamed into place.
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { type FileHandle, mkdir, rename, unlink } from "node:fs/promises";
import { ServiceError } from "../../core/index.ts";
import type { FileStat, SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import { fileReadStream, writeStreamInto } from "./file-streams.ts";
import { asynchronousHostCalls, type HostCalls } from "./host-calls.ts";
import {
  directoryFlags,
  locate,
  outsideSandbox,
  type ResolvedPath,
  resolveSandboxPath,
  type SandboxRoot,
} from "./path-resolution.ts";

const maximumWalkDepth = 256;
const walkChunk = 32;

const through = (directory: FileHandle, name?: string) =>
  name === undefined ? `/proc/self/fd/${directory.fd}` : `/proc/self/fd/${directory.fd}/${name}`;

/**
 * `owner` is the session's host uid and gid: what this (root) server creates for the sandbox is
 * handed to it through the open descriptor (fchown), never by path, so a swapped symlink cannot
 * turn the chown onto a host file. `calls` are the host calls its reads and path resolution make
 * (host-calls.ts): the synchronous ones on the file thread, which never writes. Writes (mkdir,
 * rename, unlink, and the opened file's chown and contents) are node:fs/promises'.
 */
export function createSandboxFileSystem(
  roots: SandboxRoot[],
  owner: { uid: number; gid: number } | null,
  calls: HostCalls = asynchronousHostCalls,
): SandboxFileSystem {
  const { lstat, open, opendir } = calls;
  const resolve = (path: string) => resolveSandboxPath(roots, path, true, calls);
  const handOver = async (handle: FileHandle) => {
    if (owner !== null) await handle.chown(owner.uid, owner.gid);
  };

  const toFileStat = (sandboxPath: string, stats: Stats): FileStat => ({
    path: sandboxPath,
    isDirectory: stats.isDirectory(),
    size: stats.size,
    modifiedAt: stats.mtime,
  });

  /** Opens the directory at `components` below the root without following symlinks. */
  async function openDirectory(location: ResolvedPath, components: string[], create = false) {
    let directory = await open(location.root.hostPath, directoryFlags);
    try {
      for (const component of components) {
        let next: FileHandle;
        try {
          next = await open(through(directory, component), directoryFlags);
        } catch (error) {
          if (!create || errorCode(error) !== "ENOENT") throw error;
          const made = await mkdir(through(directory, component), { mode: 0o755 }).then(
            () => true,
            (mkdirError) => {
              if (errorCode(mkdirError) !== "EEXIST") throw mkdirError;
              return false;
            },
          );
          next = await open(through(directory, component), directoryFlags);
          if (made) await handOver(next);
        }
        await directory.close();
        directory = next;
      }
      return directory;
    } catch (error) {
      await directory.close();
      throw error;
    }
  }

  /** Runs `action` with the parent directory of a resolved path open; the root itself has no parent here. */
  async function withParent<T>(
    location: ResolvedPath,
    create: boolean,
    action: (parent: FileHandle, name: string) => Promise<T>,
  ): Promise<T> {
    const name = location.components.at(-1);
    if (name === undefined) {
      throw new ServiceError("validation_error", `Is a directory: ${location.sandboxPath}`);
    }
    const parent = await openDirectory(location, location.components.slice(0, -1), create);
    try {
      return await action(parent, name);
    } finally {
      await parent.close();
    }
  }

  async function statResolved(location: ResolvedPath): Promise<FileStat | null> {
    try {
      if (location.components.length === 0) {
        const directory = await openDirectory(location, []);
        try {
          return toFileStat(location.sandboxPath, await directory.stat());
        } finally {
          await directory.close();
        }
      }
      return await withParent(location, false, async (parent, name) =>
        toFileStat(location.sandboxPath, await lstat(through(parent, name))),
      );
    } catch (error) {
      if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
      throw translate(error, location.sandboxPath);
    }
  }

  async function readBytes(path: string, maxBytes: number): Promise<Uint8Array> {
    const { file, size, sandboxPath } = await openForReading(path, maxBytes);
    try {
      // Read one byte more than allowed so a file that grew since fstat is still refused.
      const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > maxBytes) throw tooLarge(sandboxPath, length, maxBytes);
      return buffer.subarray(0, length);
    } finally {
      await file.close();
    }
  }

  /** Opens a regular file for reading without following a link; refused past maxBytes. */
  async function openForReading(path: string, maxBytes: number) {
    const location = await resolve(path);
    try {
      return await withParent(location, false, async (parent, name) => {
        const file = await open(
          through(parent, name),
          constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        );
        try {
          const stats = await file.stat();
          checkRegularFile(stats, location.sandboxPath);
          if (stats.size > maxBytes) throw tooLarge(location.sandboxPath, stats.size, maxBytes);
          return { file, size: stats.size, sandboxPath: location.sandboxPath };
        } catch (error) {
          await file.close();
          throw error;
        }
      });
    } catch (error) {
      throw translate(error, location.sandboxPath);
    }
  }

  /**
   * Writes a file through a temporary one in the same directory, renamed into place once `fill`
   * has written it all; a failed or refused write removes the temporary file and leaves the old
   * one. Returns the size written.
   */
  async function writeResolved(
    path: string,
    fill: (file: FileHandle) => Promise<void>,
  ): Promise<{ created: boolean; size: number }> {
    const location = await resolve(path);
    try {
      return await withParent(location, true, async (parent, name) => {
        let existing: Stats | null = null;
        try {
          existing = await lstat(through(parent, name));
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
        if (existing !== null) {
          if (existing.isSymbolicLink()) throw outsideSandbox(location.sandboxPath);
          checkRegularFile(existing, location.sandboxPath);
        }
        const temporaryName = `.cairn-${randomBytes(6).toString("hex")}.tmp`;
        const file = await open(
          through(parent, temporaryName),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          existing === null ? 0o644 : existing.mode & 0o777,
        );
        let size: number;
        try {
          await handOver(file);
          await fill(file);
          size = (await file.stat()).size;
          await file.close();
          await rename(through(parent, temporaryName), through(parent, name));
        } catch (error) {
          await file.close().catch(() => {});
          await unlink(through(parent, temporaryName)).catch(() => {});
          throw error;
        }
        return { created: existing === null, size };
      });
    } catch (error) {
      throw translate(error, location.sandboxPath);
    }
  }

  return {
    roots: () => roots.map((root) => root.sandboxPath),

    async stat(path) {
      return statResolved(await resolve(path));
    },

    async readFile(path, maxBytes) {
      return Buffer.from(await readBytes(path, maxBytes)).toString("utf8");
    },

    readBytes,

    async readStream(path, maxBytes) {
      const { file, size, sandboxPath } = await openForReading(path, maxBytes);
      return { size, stream: fileReadStream(file, size, sandboxPath) };
    },

    async writeFile(path, content) {
      return writeResolved(path, (file) => file.writeFile(Buffer.from(content, "utf8")).then(() => {}));
    },

    async writeBytes(path, content) {
      return writeResolved(path, (file) => file.writeFile(content).then(() => {}));
    },

    async writeStream(path, content, maxBytes) {
      return writeResolved(path, (file) => writeStreamInto(file, content, maxBytes));
    },

    async list(path, limit) {
      const location = await resolve(path);
      let directory: FileHandle | null = null;
      try {
        directory = await openDirectory(location, location.components);
        // Entry by entry, never more names than the limit asks for: a disk's worth of entries
        // (650,000 in a 10 GiB sandbox) read whole was the caller's to hold and sort.
        const names: string[] = [];
        const listing = await opendir(through(directory));
        try {
          for await (const entry of listing) {
            names.push(entry.name);
            if (names.length > limit) break;
          }
        } finally {
          await listing.close().catch(() => {});
        }
        names.sort();
        const entries: FileStat[] = [];
        for (const name of names) {
          const childPath = joinSandboxPath(location.sandboxPath, name);
          const stats = await statChild(directory, name, childPath);
          if (stats !== null) entries.push(toFileStat(childPath, stats));
        }
        return entries;
      } catch (error) {
        throw translate(error, location.sandboxPath);
      } finally {
        await directory?.close();
      }
    },

    async walk(path, limit) {
      const location = await resolve(path);
      const entries: FileStat[] = [];
      const visit = async (directory: FileHandle, sandboxPath: string, depth: number): Promise<void> => {
        const listing = await opendir(through(directory));
        try {
          // Names in chunks, each chunk's entries examined at once: one at a time, a walk of
          // 20,000 entries spent seconds waiting on the file system.
          let names: string[] = [];
          const examine = async (): Promise<void> => {
            const chunk = names;
            names = [];
            const found = await Promise.all(
              chunk.map((name) => statChild(directory, name, joinSandboxPath(sandboxPath, name))),
            );
            for (const [index, stats] of found.entries()) {
              if (entries.length >= limit) return;
              // Links met on the way are left out, as ripgrep does: neither followed nor reported, so
              // glob and grep see no link to a directory (which they would read) nor to a file twice.
              if (stats === null || stats.isSymbolicLink()) continue;
              const childPath = joinSandboxPath(sandboxPath, chunk[index]);
              entries.push(toFileStat(childPath, stats));
              if (!stats.isDirectory() || depth >= maximumWalkDepth) continue;
              const child = await openChildDirectory(directory, chunk[index], childPath);
              if (child === null) continue;
              try {
                await visit(child, childPath, depth + 1);
              } finally {
                await child.close();
              }
            }
          };
          for await (const entry of listing) {
            if (entries.length >= limit) return;
            names.push(entry.name);
            if (names.length === walkChunk) await examine();
          }
          if (entries.length < limit) await examine();
        } finally {
          await listing.close().catch(() => {});
        }
      };
      let directory: FileHandle | null = null;
      try {
        directory = await openDirectory(location, location.components);
        if (limit > 0) await visit(directory, location.sandboxPath, 0);
        return entries;
      } catch (error) {
        throw translate(error, location.sandboxPath);
      } finally {
        await directory?.close();
      }
    },
  };

  /** lstat of a directory entry; an entry that is itself a root (a volume mount point) shows the volume. */
  async function statChild(directory: FileHandle, name: string, childPath: string): Promise<Stats | null> {
    try {
      const mounted = locate(roots, childPath);
      if (mounted !== null && mounted.components.length === 0) return await lstat(mounted.root.hostPath);
      return await lstat(through(directory, name));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  async function openChildDirectory(directory: FileHandle, name: string, childPath: string) {
    const mounted = locate(roots, childPath);
    try {
      if (mounted !== null && mounted.components.length === 0) {
        return await open(mounted.root.hostPath, directoryFlags);
      }
      return await open(through(directory, name), directoryFlags);
    } catch (error) {
      // Replaced by a file or a symlink since the lstat: skip it rather than follow it.
      if (["ENOENT", "ENOTDIR", "ELOOP"].includes(errorCode(error) ?? "")) return null;
      throw error;
    }
  }
}

function checkRegularFile(stats: Stats, sandboxPath: string): void {
  if (stats.isDirectory()) throw new ServiceError("validation_error", `Is a directory: ${sandboxPath}`);
  if (!stats.isFile()) {
    throw new ServiceError("validation_error", `Not a regular file: ${sandboxPath}`, {
      details: { path: sandboxPath },
    });
  }
  // A hard link may share its inode with a file outside the sandbox roots.
  if (stats.nlink > 1) throw outsideSandbox(sandboxPath);
}

function tooLarge(sandboxPath: string, size: number, maxBytes: number): ServiceError {
  return new ServiceError("validation_error", `File is larger than ${maxBytes} bytes: ${sandboxPath}`, {
    details: { path: sandboxPath, size, max_bytes: maxBytes },
  });
}

function joinSandboxPath(directory: string, name: string): string {
  return directory === "/" ? `/${name}` : `${directory}/${name}`;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Host errors become the ServiceErrors a client can act on; anything else stays internal. */
function translate(error: unknown, sandboxPath: string): unknown {
  if (error instanceof ServiceError) return error;
  switch (errorCode(error)) {
    case "ENOENT":
      return new ServiceError("not_found", `No such file or directory: ${sandboxPath}`);
    case "ENOTDIR":
      return new ServiceError("not_found", `Not a directory: ${sandboxPath}`);
    case "EISDIR":
      return new ServiceError("validation_error", `Is a directory: ${sandboxPath}`);
    case "ELOOP":
      // A symlink appeared where the resolved path had none: refuse rather than follow it.
      return outsideSandbox(sandboxPath);
    case "ENAMETOOLONG":
      return new ServiceError("validation_error", `Path is too long: ${sandboxPath}`);
    case "ENOSPC":
    case "EDQUOT":
      // The sandbox's own disk is full (its storage_gb): the caller's to fix, not a server fault.
      return new ServiceError("validation_error", `No space left on the sandbox's disk: ${sandboxPath}`, {
        details: [
          {
            type: "no_space",
            loc: ["path"],
            msg: "The sandbox's disk (storage_gb) is full: delete files, or create the sandbox with a larger storage_gb",
          },
        ],
      });
    default:
      return error;
  }
}
