/**
 * What each local image build is given: the isolation a sandbox's session has, from the same
 * pieces (lib/sandbox-isolation). A build runs attacker-chosen code (npm install scripts,
 * setup.py), so it gets
 * - a host uid of its own, from a range of the builder's, distinct from every sandbox's and from
 *   every other build in flight: no build can signal, trace or read another's processes or files;
 * - memory, pids and cpu cgroups of its own (or, where cgroup v1 is not writable, the rlimits
 *   alone), the sessions' rlimits, their seccomp filter and no_new_privs, applied by the session
 *   helper before bwrap starts;
 * - a disk of its own: a preallocated ext4 image `<dataDir>/image-builds/disks/<room id>.img`,
 *   loop-mounted nodev,nosuid at `/run/cairn-image-builds/<digest of dataDir>/<room id>`, holding
 *   the layer, the jail's /tmp (caches, downloads) and the egress proxy's socket, so a build that
 *   writes past it fails with ENOSPC inside the jail and takes nothing more from the host.
 */
import { createHash, randomUUID } from "node:crypto";
import { chmod, chown, mkdir, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { Logger } from "../../core/ports/logger.ts";
import {
  buildSeccompFilter,
  buildSessionHelper,
  type CgroupManager,
  createSessionSpawner,
  detectCgroupsV1,
  formatDisk,
  mountDisk,
  mountedPaths,
  type SessionSpawner,
  type SizeLimits,
  type UserIdRange,
  unmountDisk,
} from "../../lib/sandbox-isolation/index.ts";

/** Host uids builds run as: right after the sandboxes' default range (2000000–2065535). */
export const defaultBuildUserIds: UserIdRange = { first: 2_100_000, count: 65_536 };

export const defaultBuildDiskBytes = 10 * 1024 ** 3;

/** Memory, processes and CPU of one build; file size and CPU time follow its disk and time limit. */
export const defaultBuildLimits = {
  memoryBytes: 2 * 1024 ** 3,
  maxProcesses: 256,
  cpuCores: 1,
  maxOpenFiles: 4096,
};

export type BuildLimits = typeof defaultBuildLimits;

export interface BuildIsolationSettings {
  dataDir: string;
  userIds: UserIdRange;
  diskBytes: number;
  limits: SizeLimits;
  /** false: rlimits only (as where cgroup v1 is not writable). */
  useCgroups: boolean;
  /** The cgroup made under the server's own in each hierarchy; one child per build below it. */
  cgroupParent: string;
  logger: Logger;
}

/** What the builder's host side has once set up (the first build does it). */
export interface BuildHost {
  spawner: SessionSpawner;
  seccompFile: string;
  cgroups: CgroupManager | null;
  limits: SizeLimits;
}

/** One build's own uid, disk and cgroups. */
export interface BuildRoom {
  id: string;
  uid: number;
  /** The disk's mount point, its directories `layer` and `tmp` (the uid's, 0700) and `run` (root's: the proxy's socket). */
  disk: string;
  layer: string;
  tmp: string;
  run: string;
  /** The cgroup `tasks` files the build joins; empty without cgroups. */
  cgroupTaskFiles: string[];
}

export function buildMountDirectory(dataDir: string): string {
  const digest = createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16);
  return join("/run/cairn-image-builds", digest);
}

export function createBuildIsolation(settings: BuildIsolationSettings) {
  const buildsDirectory = join(settings.dataDir, "image-builds");
  const disksDirectory = join(buildsDirectory, "disks");
  const mountDirectory = buildMountDirectory(settings.dataDir);
  const imageFile = (id: string) => join(disksDirectory, `${id}.img`);
  const claimedUserIds = new Set<number>();
  let ready: Promise<BuildHost> | null = null;

  async function setUp(): Promise<BuildHost> {
    const helperPath = await buildSessionHelper();
    // What a server that died mid-build left of this data directory's builds: nothing uses it.
    await unmountUnder(mountDirectory);
    await rm(disksDirectory, { recursive: true, force: true });
    await mkdir(disksDirectory, { recursive: true, mode: 0o700 });
    // Walkable (bwrap runs as each build's uid and binds from its disk), not listable.
    await mkdir(mountDirectory, { recursive: true, mode: 0o711 });
    await chmod(dirname(mountDirectory), 0o711);
    await chmod(mountDirectory, 0o711);
    const seccompFile = join(buildsDirectory, "seccomp.bpf");
    await writeFile(seccompFile, buildSeccompFilter(), { mode: 0o600 });
    let cgroups: CgroupManager | null = null;
    if (settings.useCgroups) {
      const detection = await detectCgroupsV1(settings.cgroupParent);
      cgroups = detection.manager;
      if (detection.manager === null) {
        settings.logger.warn(
          { reason: detection.reason },
          `cgroup v1 is not usable (${detection.reason}): image builds get rlimits only, no memory or CPU share limit per build`,
        );
      }
    }
    return { spawner: createSessionSpawner(helperPath), seccompFile, cgroups, limits: settings.limits };
  }

  /** A uid of the range no build in flight holds, at random so two builders on one host rarely meet. */
  function claimUserId(): number {
    const { first, count } = settings.userIds;
    if (claimedUserIds.size >= count) throw new Error(`all ${count} build uids from ${first} are in use`);
    for (;;) {
      const uid = first + Math.floor(Math.random() * count);
      if (claimedUserIds.has(uid)) continue;
      claimedUserIds.add(uid);
      return uid;
    }
  }

  /** Kills whatever of the build is left, removes its cgroups and its disk, frees its uid. */
  async function release(host: BuildHost, room: BuildRoom): Promise<void> {
    await host.cgroups?.destroySandbox(room.id);
    await unmountDisk(room.disk);
    await rm(imageFile(room.id), { force: true });
    claimedUserIds.delete(room.uid);
  }

  /** A uid, a formatted and mounted disk and cgroups for one build. */
  async function prepare(host: BuildHost): Promise<BuildRoom> {
    const id = randomUUID();
    const disk = join(mountDirectory, id);
    const room: BuildRoom = {
      id,
      uid: claimUserId(),
      disk,
      layer: join(disk, "layer"),
      tmp: join(disk, "tmp"),
      run: join(disk, "run"),
      cgroupTaskFiles: [],
    };
    try {
      // Refused with global_capacity_reached when the host would keep less than its reserve.
      await formatDisk(imageFile(id), settings.diskBytes);
      await mountDisk(imageFile(id), disk);
      for (const path of [room.layer, room.tmp]) {
        await mkdir(path);
        await chown(path, room.uid, room.uid);
        // After the chown: mkdir's mode is cut by the umask.
        await chmod(path, 0o700);
      }
      await mkdir(room.run, { mode: 0o755 });
      if (host.cgroups !== null) {
        await host.cgroups.prepareSandbox(id, host.limits);
        room.cgroupTaskFiles = host.cgroups.sandboxTaskFiles(id);
      }
      return room;
    } catch (error) {
      await release(host, room);
      throw error;
    }
  }

  return {
    /** The host side, set up once; a failed set-up is tried again by the next build. */
    host(): Promise<BuildHost> {
      if (ready === null) {
        ready = setUp();
        ready.catch(() => {
          ready = null;
        });
      }
      return ready;
    },
    prepare,
    release,
    /** Ends the serving helper (and with it any build still running) and its mount directory. */
    async close(): Promise<void> {
      const host = await ready?.catch(() => null);
      await host?.spawner.close();
      await rmdir(mountDirectory).catch(() => {});
    },
  };
}

export type BuildIsolation = ReturnType<typeof createBuildIsolation>;

async function unmountUnder(directory: string): Promise<void> {
  for (const path of await mountedPaths()) {
    if (path.startsWith(`${directory}/`)) await unmountDisk(path);
  }
}
