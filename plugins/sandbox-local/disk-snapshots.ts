/**
 * Snapshots of sandbox disks on the local runtime (docs/sandboxes.md#snapshots): each is a copy of
 * the session's disk image, `<dataDir>/snapshots/<id>.img`, taken with the file system frozen
 * (fsfreeze: every write the sandbox finished is on the image, and none lands until the copy is
 * done), copied by `copy` below. Never written again: a restore copies it in turn.
 */
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { ensureHostRoom, type HostRunner, runHostTool } from "../../lib/sandbox-isolation/index.ts";

/**
 * `copy FROM TO`: a copy-on-write clone where the file system has them (XFS, Btrfs); elsewhere the
 * used blocks, 1 MiB at a time, past the page cache (direct I/O) and leaving runs of zeros as
 * holes. Through the page cache, a 1 GiB copy took 0.5 s or 2.8 s by what the host's memory had
 * just been doing (the copy's own gigabyte of pages to find, and then write back); direct, about
 * a second either way. A direct read first writes back what the cache holds of the range, so the
 * frozen disk's last writes are in the copy.
 */
const copy = [
  "copy() {",
  '  cp --reflink=always "$1" "$2" 2>/dev/null ||',
  '    dd if="$1" of="$2" bs=1M iflag=direct oflag=direct conv=sparse status=none',
  "}",
].join("\n");

// The thaw runs whatever happens to the copy (the trap), so a failed copy never leaves the sandbox frozen.
const takeScript = [
  "set -e",
  "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
  copy,
  'fsfreeze --freeze "$2"',
  "trap 'fsfreeze --unfreeze \"$2\"' EXIT",
  'copy "$1" "$3"',
].join("\n");

// The disk keeps its blocks reserved as a new one does (formatDisk), so ENOSPC stays inside it.
const restoreScript = [
  "set -e",
  "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
  copy,
  'copy "$1" "$2"',
  'fallocate --length "$3" "$2"',
].join("\n");

export function createDiskSnapshots(options: { directory: string; runner?: HostRunner }) {
  const { directory } = options;
  const runner = options.runner ?? runHostTool;
  const imageOf = (id: string) => join(directory, `${id}.img`);

  return {
    imageOf,

    /** Copies the mounted disk `image` (mounted at `mountPoint`) frozen; answers the bytes the copy takes. */
    async take(id: string, image: string, mountPoint: string): Promise<number> {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const partial = `${imageOf(id)}.partial`;
      try {
        await runner("/bin/sh", ["-c", takeScript, "snapshot", image, mountPoint, partial]);
        await rename(partial, imageOf(id));
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      const { blocks } = await stat(imageOf(id));
      return blocks * 512;
    },

    /** Makes `target` a disk of `bytes` holding the snapshot's file system. */
    async restore(id: string, target: string, bytes: number): Promise<void> {
      const { size } = await stat(imageOf(id));
      // A disk smaller than the snapshot's cannot hold its file system.
      if (size > bytes) throw new Error(`snapshot ${id} is ${size} bytes, the disk only ${bytes}`);
      await ensureHostRoom(directory, bytes);
      await runner("/bin/sh", ["-c", restoreScript, "restore-snapshot", imageOf(id), target, String(bytes)]);
    },

    async remove(id: string): Promise<void> {
      await rm(imageOf(id), { force: true });
      await rm(`${imageOf(id)}.partial`, { force: true });
    },
  };
}
