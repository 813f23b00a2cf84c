/**
 * The local sandbox runtime: one bubblewrap sandbox per session on this machine. A sandbox is a
 * directory `<dataDir>/sandboxes/<id>/` (sandbox.json, disk.img), its disk mounted under the
 * mount directory (session-disk.ts), a host uid of its own from the configured range and, where
 * cgroup v1 is writable, memory/pids/cpu cgroups; every exec is a fresh bwrap as that uid that
 * joins them. Nothing runs between execs (background processes are out of scope).
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "../../core/errors.ts";
import { type Logger, silentLogger } from "../../core/ports/logger.ts";
import type {
  ExecRequest,
  ExecResult,
  SandboxConnectInfo,
  SandboxFileSystem,
  SandboxRuntime,
  SandboxSpec,
} from "../../core/ports/sandbox-runtime.ts";
import { defaultStorageGb } from "../../core/sandboxes/sizes.ts";
import { bubblewrapArguments, hostSystemArguments } from "./bubblewrap-arguments.ts";
import { type CgroupManager, detectCgroupsV1 } from "./cgroups.ts";
import { runBubblewrap, seccompDescriptor } from "./exec.ts";
import { createSandboxFileSystem } from "./file-system.ts";
import { createDescriptorMask } from "./inherited-descriptors.ts";
import type { SandboxRoot } from "./path-resolution.ts";
import { buildSeccompFilter } from "./seccomp.ts";
import {
  defaultMountDirectory,
  diskBytes,
  etcMountPoint,
  formatDisk,
  handOverTree,
  mountDisk,
  mountedPaths,
  mountNewDisk,
  mountSandboxEtc,
  mountVolume,
  unmountDisk,
  volumeMountPoint,
} from "./session-disk.ts";
import { resolveSizeLimits, type SizeOverrides } from "./sizes.ts";

export interface LocalSandboxRuntimeSettings {
  /** Sandboxes live in `<dataDir>/sandboxes`, volumes in `<dataDir>/volumes`. */
  dataDir: string;
  logger?: Logger;
  /** Overrides of the per-size limits (see sizes.ts and the README). */
  sizes?: SizeOverrides;
  bubblewrapPath?: string;
  /** Name of the cgroup made under the server's own cgroup in each hierarchy. */
  cgroupParent?: string;
  /** false skips cgroups and limits by rlimits only (as on hosts where cgroups are not writable). */
  useCgroups?: boolean;
  /** Host uids (and gids) handed out one per sandbox; none of them may belong to anything else. */
  userIds?: UserIdRange;
  /** Where sandbox disks are mounted (default `/run/cairn-sandboxes/<digest of dataDir>`). */
  mountDirectory?: string;
  /** false makes every disk at create; by default one spare disk of the small size waits (2 GiB). */
  spareDisk?: boolean;
}

export interface UserIdRange {
  first: number;
  count: number;
}

export const defaultUserIds: UserIdRange = { first: 2_000_000, count: 65_536 };

type SandboxRecord = Pick<
  SandboxSpec,
  "id" | "accountId" | "size" | "storageGb" | "egressHosts" | "volumeMounts"
> & {
  /** The session's host uid, also its gid. */
  uid: number;
};

interface RunningExec {
  terminate: AbortController;
  done: Promise<unknown>;
}

// Sandbox and volume ids are UUIDs; anything else could walk out of the data directory.
const safeId = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const allowedMountParents = ["/workspace/", "/tmp/", "/mnt/"];

let execCounter = 0;

export function createLocalSandboxRuntime(settings: LocalSandboxRuntimeSettings): SandboxRuntime {
  const logger = settings.logger ?? silentLogger;
  const sizes = resolveSizeLimits(settings.sizes);
  const userIds = settings.userIds ?? defaultUserIds;
  const bubblewrapPath = settings.bubblewrapPath ?? "/usr/bin/bwrap";
  const sandboxesDirectory = join(settings.dataDir, "sandboxes");
  const volumesDirectory = join(settings.dataDir, "volumes");
  const sparesDirectory = join(settings.dataDir, "spare-disks");
  const spareDiskBytes = settings.spareDisk === false ? 0 : diskBytes(defaultStorageGb.small);
  let spareDisk: Promise<string | null> | null = null;
  const systemDirectory = join(settings.dataDir, "system");
  const seccompFile = join(systemDirectory, "seccomp.bpf");
  const mountDirectory = settings.mountDirectory ?? defaultMountDirectory(settings.dataDir);
  const systemArguments = hostSystemArguments();
  const descriptorMask = createDescriptorMask();
  const records = new Map<string, SandboxRecord>();
  /** Uids handed to sandboxes this runtime is creating or holds, by sandbox id. */
  const claimedUserIds = new Map<string, number>();
  const mounted = new Set<string>();
  const preparedCgroups = new Set<string>();
  const running = new Map<string, Set<RunningExec>>();
  const pendingCreates = new Set<Promise<unknown>>();
  let closed = false;

  const ready = (async () => {
    // Switching to a session's uid, loop-mounting its disk and writing cgroups all need root.
    if (process.getuid?.() !== 0) {
      logger.warn({}, notRootReason);
      return { cgroups: null, unavailable: notRootReason };
    }
    await mkdir(sandboxesDirectory, { recursive: true, mode: 0o700 });
    await mkdir(volumesDirectory, { recursive: true, mode: 0o700 });
    await mkdir(mountDirectory, { recursive: true, mode: 0o755 });
    // A spare disk is never adopted: a new one is made once sandboxes are created again.
    await rm(sparesDirectory, { recursive: true, force: true });
    await mkdir(sparesDirectory, { mode: 0o700 });
    await mountSandboxEtc(systemDirectory, mountDirectory);
    await writeFile(seccompFile, buildSeccompFilter(), { mode: 0o600 });
    let cgroups: CgroupManager | null = null;
    if (settings.useCgroups !== false) {
      const detection = await detectCgroupsV1(settings.cgroupParent ?? "cairn");
      cgroups = detection.manager;
      if (detection.manager === null) {
        logger.warn(
          { reason: detection.reason },
          "cgroup v1 is not usable: sandboxes get rlimits only (file size, CPU time, open files, processes per uid, address space); no per-sandbox memory or CPU share limit",
        );
      }
    }
    await adoptDisks();
    return { cgroups, unavailable: null };
  })();
  // Keep an early failure for the first call instead of an unhandled rejection.
  ready.catch(() => {});

  async function started() {
    const state = await ready;
    if (state.unavailable !== null) {
      throw new ServiceError("sandbox_operation_failed", "The local sandbox runtime is not available", {
        cause: new Error(state.unavailable),
      });
    }
    return state;
  }

  const sandboxDirectory = (id: string) => join(sandboxesDirectory, id);
  const recordFile = (id: string) => join(sandboxDirectory(id), "sandbox.json");
  const imageFile = (id: string) => join(sandboxDirectory(id), "disk.img");
  const diskMount = (id: string) => join(mountDirectory, id);

  /** Mounts the disks of the sandboxes found on disk (a restart, or a reboot that emptied /run). */
  async function adoptDisks(): Promise<void> {
    const present = await mountedPaths();
    const entries = await readdir(sandboxesDirectory, { withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isDirectory() || !safeId.test(entry.name)) continue;
      const record = loadRecordSync(entry.name);
      if (record === null || typeof record.uid !== "number" || !existsSync(imageFile(record.id))) continue;
      try {
        if (!present.has(diskMount(record.id))) {
          await mountDisk(imageFile(record.id), diskMount(record.id));
        }
        await mountVolumes(record);
      } catch (error) {
        logger.error({ sandboxId: record.id, error: String(error) }, "could not mount a sandbox disk");
      }
      mounted.add(record.id);
    }
  }

  async function mountVolumes(record: SandboxRecord): Promise<void> {
    for (const [index, mount] of record.volumeMounts.entries()) {
      const directory = join(volumesDirectory, mount.volumeId);
      await mkdir(directory, { recursive: true });
      await handOverTree(directory, owner(record));
      await mountVolume(directory, diskMount(record.id), index);
    }
  }

  function loadRecordSync(id: string): SandboxRecord | null {
    const cached = records.get(id);
    if (cached !== undefined) return cached;
    if (!safeId.test(id) || !existsSync(recordFile(id))) return null;
    try {
      const record = JSON.parse(readFileSync(recordFile(id), "utf8")) as SandboxRecord;
      records.set(id, record);
      return record;
    } catch {
      // Removed by a concurrent destroy since the check.
      return null;
    }
  }

  async function loadRecord(id: string): Promise<SandboxRecord> {
    const cached = records.get(id);
    if (cached !== undefined) return cached;
    if (safeId.test(id)) {
      try {
        const record = JSON.parse(await readFile(recordFile(id), "utf8")) as SandboxRecord;
        records.set(id, record);
        return record;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    throw new ServiceError("not_found", `Sandbox not found: ${id}`);
  }

  function rootsOf(record: SandboxRecord | null, id: string): SandboxRoot[] {
    const roots: SandboxRoot[] = [
      { sandboxPath: "/workspace", hostPath: join(diskMount(id), "workspace") },
      { sandboxPath: "/tmp", hostPath: join(diskMount(id), "tmp") },
    ];
    record?.volumeMounts.forEach((mount, index) => {
      roots.push({ sandboxPath: mount.mountPath, hostPath: volumeMountPoint(diskMount(id), index) });
    });
    return roots;
  }

  function owner(record: SandboxRecord) {
    return { uid: record.uid, gid: record.uid };
  }

  /** A uid of the range that no sandbox of this runtime holds, picked at random so that two
   * runtimes on one host (tests, a second data directory) rarely meet. */
  async function allocateUserId(sandboxId: string): Promise<number> {
    const onDisk = await readdir(sandboxesDirectory);
    // From here to the claim nothing awaits, so two concurrent creates cannot pick one uid.
    const taken = new Set<number>(claimedUserIds.values());
    for (const id of onDisk) {
      const record = loadRecordSync(id);
      if (record !== null) taken.add(record.uid);
    }
    if (taken.size >= userIds.count) {
      throw new ServiceError("sandbox_operation_failed", "No sandbox user id is free", {
        cause: new Error(`all ${userIds.count} uids from ${userIds.first} are in use`),
      });
    }
    for (;;) {
      const uid = userIds.first + Math.floor(Math.random() * userIds.count);
      if (taken.has(uid)) continue;
      claimedUserIds.set(sandboxId, uid);
      return uid;
    }
  }

  async function ensureCgroups(cgroups: CgroupManager, record: SandboxRecord): Promise<void> {
    if (preparedCgroups.has(record.id)) return;
    await cgroups.prepareSandbox(record.id, sizes[record.size]);
    preparedCgroups.add(record.id);
  }

  async function terminateRunning(id: string): Promise<void> {
    const executions = [...(running.get(id) ?? [])];
    for (const execution of executions) execution.terminate.abort();
    await Promise.allSettled(executions.map((execution) => execution.done));
  }

  async function execute(record: SandboxRecord, request: ExecRequest): Promise<ExecResult> {
    const { cgroups } = await started();
    const limits = sizes[record.size];
    let execName: string | null = null;
    let cgroupTaskFiles: string[] = [];
    try {
      if (cgroups !== null) {
        await ensureCgroups(cgroups, record);
        execName = `exec-${process.pid}-${++execCounter}`;
        cgroupTaskFiles = await cgroups.prepareExec(record.id, execName);
      }
    } catch (error) {
      throw new ServiceError("sandbox_operation_failed", "The sandbox limits could not be applied", {
        cause: error,
      });
    }
    const roots = rootsOf(record, record.id);
    const terminate = new AbortController();
    const sweep = async () => {
      if (cgroups !== null && execName !== null) await cgroups.finishExec(record.id, execName);
    };
    const done = runBubblewrap({
      bubblewrapPath,
      bubblewrapArguments: bubblewrapArguments(
        systemArguments,
        {
          etc: etcMountPoint(mountDirectory),
          disk: diskMount(record.id),
          sharedMemoryBytes: Math.floor(limits.memoryBytes / 4),
          volumes: roots.slice(2).map((root) => ({ hostPath: root.hostPath, mountPath: root.sandboxPath })),
        },
        seccompDescriptor,
      ),
      command: request.command,
      user: owner(record),
      seccompFile,
      cgroupTaskFiles,
      stdio: descriptorMask.stdio,
      limits,
      addressSpaceLimit: cgroups === null,
      timeoutSeconds: request.timeoutSeconds,
      signal: request.signal,
      terminate: terminate.signal,
      sweep,
    }).finally(() =>
      sweep().catch((error: unknown) => {
        logger.error({ sandboxId: record.id, error: String(error) }, "could not empty an exec's cgroup");
      }),
    );
    const execution: RunningExec = { terminate, done };
    const set = running.get(record.id) ?? new Set();
    running.set(record.id, set);
    set.add(execution);
    try {
      return await done;
    } finally {
      set.delete(execution);
      if (set.size === 0) running.delete(record.id);
    }
  }

  return {
    name: "local",

    create(spec) {
      const work = createSandbox(spec);
      pendingCreates.add(work);
      const forget = () => pendingCreates.delete(work);
      work.then(forget, forget);
      return work;
    },

    async destroy(id) {
      if (!safeId.test(id) || (await ready).unavailable !== null) return;
      await terminateRunning(id);
      await removeSandbox(id);
    },

    async list() {
      // A server that cannot run sandboxes holds none.
      if ((await ready).unavailable !== null) return [];
      const entries = await readdir(sandboxesDirectory, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isDirectory() && safeId.test(entry.name))
        .map((entry) => entry.name);
    },

    async exec(id, request) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      return execute(await loadRecord(id), request);
    },

    files(id): SandboxFileSystem {
      const record = loadRecordSync(id);
      return createSandboxFileSystem(rootsOf(record, id), record === null ? null : owner(record));
    },

    async close() {
      closed = true;
      // The start-up work (the disk template, cgroup detection) must not outlive the runtime.
      const state = await ready.catch(() => null);
      await Promise.all([...running.keys()].map(terminateRunning));
      await state?.cgroups?.settle();
      await Promise.allSettled([...pendingCreates]);
      await spareDisk;
      await rm(sparesDirectory, { recursive: true, force: true });
      // Disks stay on the data directory; the next start mounts them again. Every disk under the
      // mount directory goes, not only the ones this runtime mounted: nothing else uses it.
      const present = [...(await mountedPaths())].filter((path) => path.startsWith(`${mountDirectory}/`));
      const disks = new Set([...mounted].map(diskMount));
      for (const path of present) if (!path.slice(mountDirectory.length + 1).includes("/")) disks.add(path);
      for (const disk of disks) await unmountDisk(disk).catch(() => {});
      mounted.clear();
    },
  };

  /**
   * A formatted disk of the most common size (the small size's default), made in the background
   * once this runtime has created a sandbox, so the next create only mounts it: preallocating and
   * formatting is most of a create's time. Taking it starts the next one.
   */
  async function takeSpareDisk(bytes: number): Promise<string | null> {
    if (spareDiskBytes === 0 || closed) return null;
    const taken = bytes === spareDiskBytes ? spareDisk : null;
    if (taken !== null || spareDisk === null) {
      const image = join(sparesDirectory, `${randomUUID()}.img`);
      spareDisk = formatDisk(image, spareDiskBytes).then(
        () => image,
        async (error: unknown) => {
          logger.warn({ error: String(error) }, "could not make a spare sandbox disk");
          await rm(image, { force: true });
          return null;
        },
      );
    }
    return taken === null ? null : await taken;
  }

  async function createSandbox(spec: SandboxSpec): Promise<SandboxConnectInfo> {
    if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
    if (!safeId.test(spec.id)) throw new ServiceError("validation_error", "Invalid sandbox id");
    for (const mount of spec.volumeMounts) checkVolumeMount(mount);
    if (!existsSync(bubblewrapPath)) {
      throw new ServiceError("sandbox_operation_failed", "The local sandbox runtime is not available", {
        cause: new Error(`bubblewrap not found at ${bubblewrapPath}`),
      });
    }
    const { cgroups } = await started();
    const record: SandboxRecord = {
      id: spec.id,
      accountId: spec.accountId,
      size: spec.size,
      storageGb: spec.storageGb,
      egressHosts: spec.egressHosts,
      volumeMounts: spec.volumeMounts.map((mount) => ({
        volumeId: mount.volumeId,
        mountPath: mount.mountPath.replace(/\/+$/, ""),
      })),
      uid: await allocateUserId(spec.id),
    };
    try {
      await mkdir(sandboxDirectory(spec.id), { recursive: true, mode: 0o700 });
      // The record first: it claims the uid, and destroy or a restart can find the disk by it.
      // Written whole and renamed, so a concurrent reader never sees half a record.
      await writeFile(`${recordFile(spec.id)}.new`, JSON.stringify(record));
      await rename(`${recordFile(spec.id)}.new`, recordFile(spec.id));
      records.set(spec.id, record);
      const bytes = diskBytes(spec.storageGb ?? defaultStorageGb[spec.size]);
      const spare = await takeSpareDisk(bytes);
      if (spare !== null) await rename(spare, imageFile(spec.id));
      else await formatDisk(imageFile(spec.id), bytes);
      await mountNewDisk(imageFile(spec.id), diskMount(spec.id), owner(record));
      mounted.add(spec.id);
      await mountVolumes(record);
      if (cgroups !== null) await ensureCgroups(cgroups, record);
    } catch (error) {
      await removeSandbox(spec.id).catch(() => {});
      throw new ServiceError("sandbox_operation_failed", "The sandbox could not be created", {
        cause: error,
      });
    }
    if (spec.egressHosts.length > 0) {
      logger.info(
        { sandboxId: spec.id, egressHosts: spec.egressHosts.length },
        "local sandboxes have no network; egress hosts are not reachable from inside",
      );
    }
    return { podName: null, note: "Local bubblewrap sandbox; use exec and the file operations." };
  }

  async function removeSandbox(id: string): Promise<void> {
    const { cgroups } = await ready;
    if (cgroups !== null) await cgroups.destroySandbox(id);
    preparedCgroups.delete(id);
    await unmountDisk(diskMount(id));
    mounted.delete(id);
    records.delete(id);
    claimedUserIds.delete(id);
    await rm(sandboxDirectory(id), { recursive: true, force: true });
  }
}

const notRootReason =
  "local sandboxes need the server to run as root: each sandbox gets its own host uid, a loop-mounted disk and cgroups (see plugins/sandbox-local/README.md)";

function checkVolumeMount(mount: { volumeId: string; mountPath: string }): void {
  const path = mount.mountPath.replace(/\/+$/, "");
  const valid =
    safeId.test(mount.volumeId) &&
    allowedMountParents.some((parent) => path.startsWith(parent)) &&
    !path.split("/").some((part) => part === ".." || part === ".") &&
    !path.includes("//") &&
    !path.includes("\0");
  if (!valid) {
    throw new ServiceError("validation_error", "Invalid volume mount", { details: { mount } });
  }
}
