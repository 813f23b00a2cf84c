/**
 * Each sandbox's own disk: a preallocated ext4 image (`<dataDir>/sandboxes/<id>/disk.img`, the
 * size of its `storage_gb`) loop-mounted, nodev and nosuid, under `/run/cairn-sandboxes/…/<id>`
 * (made, mounted and removed with lib/sandbox-isolation/disks.ts). It holds /workspace and /tmp,
 * owned by the session's host uid; the read-only sandbox /etc is one small disk shared by all. So
 * a write past the quota fails inside the sandbox with ENOSPC; the blocks are reserved when the
 * sandbox is made (fallocate), so a full sandbox never takes the host's free space; and the
 * sandbox's mounts name only paths inside its own file system (mountinfo shows `/workspace`,
 * never a host path). The mount point lives outside the data directory because the sandbox's
 * uid, not root, has to walk to it when bwrap binds it.
 */
import { createHash } from "node:crypto";
import { chmod, chown, cp, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  ensureHostRoom,
  type HostRunner,
  mountDisk,
  mountedPaths,
  runHostTool,
  unmountDisk,
} from "../../lib/sandbox-isolation/index.ts";

/** The uid and gid a sandbox's processes have inside (its host ids are the session's own). */
export const sandboxUserId = 1000;

/** Host /etc entries a normal userland needs; /etc/ssl/private and the like are deliberately absent. */
const hostEtcEntries = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates.conf",
  "debian_version",
  "inputrc",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "magic",
  "magic.mime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "profile",
  "protocols",
  "python3",
  "python3.11",
  "services",
  "ssl/certs",
  "ssl/openssl.cnf",
  "timezone",
];

/** Written instead of exposing the host's accounts and names. */
const generatedEtcFiles: Record<string, string> = {
  passwd: [
    "root:x:0:0:root:/workspace:/bin/sh",
    `sandbox:x:${sandboxUserId}:${sandboxUserId}:sandbox:/workspace:/bin/sh`,
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    "",
  ].join("\n"),
  group: `root:x:0:\nsandbox:x:${sandboxUserId}:\nnogroup:x:65534:\n`,
  hosts: "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n",
  hostname: "sandbox\n",
};

const gibibyte = 1024 ** 3;
/** ext4 needs room for its own metadata; a tiny storage_gb still gets a usable disk. */
const minimumDiskBytes = 4 * 1024 * 1024;

export function diskBytes(storageGb: number): number {
  return Math.max(minimumDiskBytes, Math.ceil((storageGb * gibibyte) / 4096) * 4096);
}

/** Where a data directory's sandbox disks are mounted: one folder per data directory. */
export function defaultMountDirectory(dataDir: string): string {
  const digest = createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16);
  return join("/run/cairn-sandboxes", digest);
}

/** Where the shared read-only /etc is mounted: a small disk of its own, so that it too names no host path. */
export function etcMountPoint(mountDirectory: string): string {
  // Not a sandbox id: those start with a letter or digit.
  return join(mountDirectory, ".etc");
}

/**
 * (Re)builds the sandbox /etc from the host's current files into a small ext4 image and mounts
 * it read-only at `etcMountPoint`, replacing what a previous start left there.
 */
export async function mountSandboxEtc(systemDirectory: string, mountDirectory: string): Promise<void> {
  const staging = join(systemDirectory, `etc.new-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, "etc"), { recursive: true, mode: 0o755 });
  for (const entry of hostEtcEntries) {
    await cp(`/etc/${entry}`, join(staging, "etc", entry), { recursive: true, verbatimSymlinks: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      },
    );
  }
  for (const [name, content] of Object.entries(generatedEtcFiles)) {
    await writeFile(join(staging, "etc", name), content, { mode: 0o644 });
  }
  const image = join(systemDirectory, "etc.img");
  await rm(image, { force: true });
  await runHostTool("mkfs.ext4", [
    "-q",
    "-F",
    "-O",
    "^has_journal",
    "-E",
    "root_owner=0:0",
    "-d",
    join(staging, "etc"),
    image,
    "32M",
  ]);
  await rm(staging, { recursive: true, force: true });
  const mountPoint = etcMountPoint(mountDirectory);
  await unmountDisk(mountPoint);
  await mkdir(mountPoint, { recursive: true, mode: 0o755 });
  await runHostTool("mount", ["-o", "loop,ro,nodev,nosuid,noatime", image, mountPoint]);
}

export interface DiskOwner {
  uid: number;
  gid: number;
}

/**
 * Makes a volume's disk image of `bytes`, with a journal (its data outlives sessions). It is
 * preallocated and formatted to keep its blocks, as a sandbox's disk is (`formatDisk`): a sparse
 * image took the host's blocks as it filled, so a volume larger than the host's free space could
 * fill the host's disk. The size is the file system's: a write past it fails with ENOSPC inside
 * the sandbox. A failed format leaves no image.
 */
export async function formatVolume(imagePath: string, bytes: number): Promise<void> {
  await ensureHostRoom(dirname(imagePath), bytes);
  const script = [
    "set -e",
    'fallocate --length "$2" "$1"',
    'mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,nodiscard,root_owner=0:0 "$1"',
  ].join("\n");
  try {
    await runHostTool("/bin/sh", ["-c", script, "format-volume", imagePath, String(bytes)]);
  } catch (error) {
    await rm(imagePath, { force: true });
    throw error;
  }
}

/** Mounts a freshly formatted disk and gives it a /workspace and a /tmp of the session's uid. */
export async function mountNewDisk(
  imagePath: string,
  mountPoint: string,
  owner: DiskOwner,
  runner: HostRunner = runHostTool,
): Promise<void> {
  await mountDisk(imagePath, mountPoint, runner);
  // The session's uid is their only user; no other account of the host may read or write them.
  await Promise.all(
    ["workspace", "tmp"].map(async (name) => {
      const path = join(mountPoint, name);
      await mkdir(path);
      await chown(path, owner.uid, owner.gid);
      // After the chown: mkdir's mode is cut by the umask.
      await chmod(path, 0o700);
    }),
  );
}

/**
 * Gives a whole tree (a volume that outlives sessions) to the session's uid. `chown -R -P` walks
 * with descriptors and never follows a symlink; it runs before the new session's init starts,
 * and between execs a session runs only its init, which touches no file (a session process
 * still running in a session that mounts the same volume is the one exception).
 */
export async function handOverTree(path: string, owner: DiskOwner): Promise<void> {
  await runHostTool("chown", ["-R", "-P", `${owner.uid}:${owner.gid}`, "--", path]);
}

/**
 * Where a sandbox's volume number `index` appears on the host: bound inside the disk's mount (in
 * a folder the sandbox never sees), so bwrap, running as the session's uid, can reach it even when
 * the data directory's parents are closed to other users, and unmounting the disk takes it along.
 */
export function volumeMountPoint(diskMountPoint: string, index: number): string {
  return join(diskMountPoint, "volumes", String(index));
}

export async function mountVolume(
  volumeDirectory: string,
  diskMountPoint: string,
  index: number,
): Promise<void> {
  const target = volumeMountPoint(diskMountPoint, index);
  if ((await mountedPaths()).has(target)) return;
  await mkdir(target, { recursive: true, mode: 0o755 });
  await runHostTool("mount", ["--bind", "-o", "nodev,nosuid", volumeDirectory, target]);
}

/** Binds a host directory read-only at `target` (which must exist). */
export async function bindReadOnly(source: string, target: string): Promise<void> {
  await runHostTool("mount", ["--bind", "-o", "ro,nodev,nosuid", source, target]);
}
