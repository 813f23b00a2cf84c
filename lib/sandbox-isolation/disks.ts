/**
 * A jail's own disk on the host: a preallocated ext4 image, loop-mounted nodev and nosuid, so a
 * write past its size fails with ENOSPC inside the jail and takes nothing more from the host; and
 * the room the host keeps free whatever those disks take. The sandbox runtime's disks, volumes and
 * /etc (plugins/sandbox-local/session-disk.ts) and each image build's disk are made with these.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rmdir, statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { ServiceError } from "../../core/index.ts";

/**
 * Room the host keeps free on the file system of the data directory, whatever sandboxes and
 * volumes take: its database and log, and everything else on that disk, must never run out.
 * 5 % of the file system, at least 2 GiB.
 */
export function hostReserveBytes(fileSystemBytes: number): number {
  return Math.max(2 * 1024 ** 3, Math.ceil(fileSystemBytes * 0.05));
}

/**
 * What this process may still write on a file system: root (the local runtime, which makes the
 * disks, runs as root) may also use the blocks the file system keeps for root, everyone else only
 * the rest. A file system may keep most of itself for root.
 */
export function writableBytes(stats: { bfree: number; bavail: number; bsize: number }): number {
  return (process.getuid?.() === 0 ? stats.bfree : stats.bavail) * stats.bsize;
}

/**
 * Refuses to take `bytes` of the file system holding `directory` when that would leave less than
 * the host's reserve: `global_capacity_reached`, the deployment is out of disk. Disks and volumes
 * are preallocated, so what is checked here is what they take.
 */
export async function ensureHostRoom(directory: string, bytes: number): Promise<void> {
  const stats = await statfs(directory);
  const available = writableBytes(stats);
  if (available - bytes >= hostReserveBytes(stats.blocks * stats.bsize)) return;
  const gib = (value: number) => (value / 1024 ** 3).toFixed(1);
  throw new ServiceError(
    "global_capacity_reached",
    `The host has no room for ${gib(bytes)} GiB more of sandbox storage (${gib(available)} GiB free, part of it kept for the server)`,
  );
}

/**
 * Makes an empty disk image of `bytes`: preallocated, then formatted in the same shell (one
 * process start instead of two). No reserved blocks (the sandbox gets all of it), no journal
 * (scratch space that dies with the session). Two options keep the preallocated blocks in the
 * image, so the host's disk cannot be promised twice:
 * - `nodiscard`: by default mkfs would punch them back out;
 * - `lazy_itable_init=0`: mkfs zeroes the inode tables itself. It costs nothing here: mkfs
 *   zeroes a file's range without freeing it. Left to the kernel after the mount, the zeroing
 *   went through the loop device as holes, 16 MiB of a 1 GiB image, at a time that depends on
 *   how busy the host is.
 * Refused first when the host has no room for it (`ensureHostRoom`).
 */
export async function formatDisk(
  imagePath: string,
  bytes: number,
  runner: HostRunner = runHostTool,
): Promise<void> {
  await ensureHostRoom(dirname(imagePath), bytes);
  const script = [
    "set -e",
    'fallocate --length "$2" "$1"',
    'mkfs.ext4 -q -F -m 0 -O ^has_journal -E lazy_itable_init=0,nodiscard,root_owner=0:0 "$1"',
  ].join("\n");
  await runner("/bin/sh", ["-c", script, "format-disk", imagePath, String(bytes)]);
}

/** Blocks in use on a mounted file system, in bytes. */
export async function usedBytes(mountPoint: string): Promise<number> {
  const stats = await statfs(mountPoint);
  return (stats.blocks - stats.bfree) * stats.bsize;
}

/** Runs a host tool as root (`runHostTool` below, or the session helper: session-spawner.ts). */
export type HostRunner = (file: string, argumentsList: string[]) => Promise<void>;

/** Mounts an existing disk again (after a restart, or a reboot that emptied /run). */
export async function mountDisk(
  imagePath: string,
  mountPoint: string,
  runner: HostRunner = runHostTool,
): Promise<void> {
  await mkdir(mountPoint, { recursive: true, mode: 0o755 });
  await runner("mount", ["-o", "loop,nodev,nosuid,noatime", imagePath, mountPoint]);
}

/** Unmounts the disk and what is bound inside it (lazily when something still holds it) and
 * removes the mount point; a missing mount is fine. */
export async function unmountDisk(mountPoint: string): Promise<void> {
  if ((await mountedPaths()).has(mountPoint)) {
    await runHostTool("umount", ["--recursive", mountPoint]).catch(() =>
      runHostTool("umount", ["--recursive", "--lazy", mountPoint]),
    );
  }
  await rmdir(mountPoint).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** Mount points of this mount namespace (octal escapes such as `\040` decoded). */
export async function mountedPaths(): Promise<Set<string>> {
  const text = await readFile("/proc/self/mountinfo", "utf8");
  const paths = new Set<string>();
  for (const line of text.split("\n")) {
    const mountPoint = line.split(" ")[4];
    if (mountPoint === undefined) continue;
    paths.add(
      mountPoint.replace(/\\([0-7]{3})/g, (_, octal: string) =>
        String.fromCharCode(Number.parseInt(octal, 8)),
      ),
    );
  }
  return paths;
}

/** Runs a host tool with a fixed PATH; its stderr is the error when it fails. */
export function runHostTool(file: string, argumentsList: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      file,
      argumentsList,
      { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C" } },
      (error, _stdout, stderr) => {
        if (error === null) resolvePromise();
        else reject(new Error(`${file} ${argumentsList.join(" ")}: ${stderr.trim() || error.message}`));
      },
    );
  });
}
