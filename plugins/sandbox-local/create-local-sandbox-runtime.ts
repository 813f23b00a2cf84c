/**
 * The local sandbox runtime: one bubblewrap sandbox per session on this machine. A sandbox is a
 * directory `<dataDir>/sandboxes/<id>/` (sandbox.json, disk.img), its disk mounted under the
 * mount directory (session-disk.ts), a host uid of its own from the configured range, where
 * cgroup v1 is writable memory/pids/cpu cgroups, and a session init (session-init.ts): one bwrap
 * that holds the sandbox's namespaces while the session lives. Every exec, and every long-running
 * session process, enters them through the session helper (exec.ts) with a pid and mount
 * namespace of its own; what an exec starts dies when its command returns.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { defaultStorageGb, ServiceError } from "../../core/index.ts";
import { type Logger, silentLogger } from "../../core/ports/logger.ts";
import type {
  ProcessRequest,
  RuntimeUnavailable,
  SandboxConnectInfo,
  SandboxFileSystem,
  SandboxRuntime,
  SandboxSpec,
} from "../../core/ports/sandbox-runtime.ts";
import {
  buildSeccompFilter,
  buildSessionHelper,
  type CgroupManager,
  createSessionSpawner,
  defaultUserIds,
  detectCgroupsV1,
  formatDisk,
  type HostRunner,
  hostSystemArguments,
  mountDisk,
  mountedPaths,
  type UserIdRange,
  unmountDisk,
  usedBytes,
} from "../../lib/sandbox-isolation/index.ts";
import type { ExecMounts } from "./bubblewrap-arguments.ts";
import { createDiskSnapshots } from "./disk-snapshots.ts";
import { processLimitLine, processLimitReached, setupFailureExitCode, shellQuote } from "./exec.ts";
import { imageLayerMounts } from "./image-layer.ts";
import { languageServersDirectory, languageServersPath } from "./language-servers.ts";
import type { SandboxRoot } from "./path-resolution.ts";
import { createSandboxRecords, ownerOf, type SandboxRecord, safeId } from "./sandbox-records.ts";
import {
  bindReadOnly,
  defaultMountDirectory,
  diskBytes,
  etcMountPoint,
  formatVolume,
  handOverTree,
  mountNewDisk,
  mountSandboxEtc,
  mountVolume,
  volumeMountPoint,
} from "./session-disk.ts";
import {
  createSessionEgress,
  type EgressSettings,
  egressHostDirectory,
  forwarderCommand,
} from "./session-egress.ts";
import { type AvailableState, createSessionManager, type SessionProcess } from "./sessions.ts";
import { resolveSizeLimits, type SizeOverrides } from "./sizes.ts";
import { createSpareDisks } from "./spare-disks.ts";
import { createFileThread } from "./threaded-file-system.ts";

export { defaultUserIds, type SessionProcess, type UserIdRange };

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
  /** How granted hosts are reached (session-egress.ts); private addresses refused by default. */
  egress?: EgressSettings;
}

export interface LocalSandboxRuntime extends SandboxRuntime {
  /** Starts `command` (run by /bin/sh -c in /workspace) in the sandbox's session. */
  startProcess(id: string, command: string): Promise<SessionProcess>;
}

// Where the host tools the runtime runs are looked for.
const hostToolDirectories = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"];

// A volume made at its first mount (one created before volumes had disk images) without a size.
const defaultVolumeBytes = 1024 ** 3;

/** Where bubblewrap is looked for unless `bubblewrapPath` says otherwise (Debian's package). */
export const defaultBubblewrapPath = "/usr/bin/bwrap";

export function createLocalSandboxRuntime(settings: LocalSandboxRuntimeSettings): LocalSandboxRuntime {
  const logger = settings.logger ?? silentLogger;
  // Bound into every session process (the language servers core starts); absent if not installed.
  const languageServersSource = languageServersDirectory();
  const languageServers =
    languageServersSource === null
      ? undefined
      : { source: languageServersSource, target: languageServersPath };
  const sizes = resolveSizeLimits(settings.sizes);
  const userIds = settings.userIds ?? defaultUserIds;
  const bubblewrapPath = settings.bubblewrapPath ?? defaultBubblewrapPath;
  const sandboxesDirectory = join(settings.dataDir, "sandboxes");
  const volumesDirectory = join(settings.dataDir, "volumes");
  const systemDirectory = join(settings.dataDir, "system");
  const seccompFile = join(systemDirectory, "seccomp.bpf");
  const mountDirectory = settings.mountDirectory ?? defaultMountDirectory(settings.dataDir);
  const systemArguments = hostSystemArguments();
  const records = createSandboxRecords(sandboxesDirectory, userIds);
  const fileThread = createFileThread();
  const mounted = new Set<string>();
  const preparedCgroups = new Set<string>();
  const pendingCreates = new Set<Promise<unknown>>();
  let closed = false;
  // Copies run through the serving helper as the mounts do, not by forking the server.
  const snapshots = createDiskSnapshots({
    directory: join(settings.dataDir, "snapshots"),
    runner: async (file, argumentsList) => hostRunner(await started())(file, argumentsList),
  });

  const ready = (async () => {
    const unavailable = (problem: RuntimeUnavailable) => {
      // One line that says what is missing and what fixes it; memory and accounts work on.
      logger.warn(
        problem,
        `local sandboxes are not available: ${problem.lacks}; fix: ${problem.remediation}`,
      );
      return { cgroups: null, spares: null, helperPath: null, spawner: null, unavailable: problem };
    };
    const problem = hostProblem(bubblewrapPath);
    if (problem) return unavailable(problem);
    let helperPath: string;
    try {
      helperPath = await buildSessionHelper();
    } catch (error) {
      return unavailable({ lacks: String(error), remediation: setupCommand });
    }
    await mkdir(sandboxesDirectory, { recursive: true, mode: 0o700 });
    await mkdir(volumesDirectory, { recursive: true, mode: 0o700 });
    // Walkable (bwrap runs as each session's uid), not listable: sandbox ids stay unknown to others.
    await mkdir(mountDirectory, { recursive: true, mode: 0o711 });
    await chmod(mountDirectory, 0o711);
    const spawner = createSessionSpawner(helperPath);
    const spares = await createSpareDisks({
      directory: join(settings.dataDir, "spare-disks"),
      bytes: settings.spareDisk === false ? 0 : diskBytes(defaultStorageGb.small),
      logger,
      // Formatted through the serving helper, not by forking the server between requests.
      runner: hostRunner({ cgroups: null, helperPath, spawner }),
    });
    await mountSandboxEtc(systemDirectory, mountDirectory);
    await writeFile(seccompFile, buildSeccompFilter(), { mode: 0o600 });
    let cgroups: CgroupManager | null = null;
    if (settings.useCgroups !== false) {
      const detection = await detectCgroupsV1(settings.cgroupParent ?? "cairn");
      cgroups = detection.manager;
      if (detection.manager === null) {
        logger.warn(
          { reason: detection.reason },
          `cgroup v1 is not usable (${detection.reason}): sandboxes get rlimits only (file size, CPU time, open files, processes per uid, address space), no per-sandbox memory or CPU share limit; fix: ${cgroupRemediation}`,
        );
      }
    }
    await adoptDisks({ cgroups, helperPath, spawner });
    return { cgroups, spares, helperPath, spawner, unavailable: null };
  })();
  // Keep an early failure for the first call instead of an unhandled rejection.
  ready.catch(() => {});

  async function started(): Promise<AvailableState> {
    const state = await ready;
    if (state.unavailable !== null || state.helperPath === null || state.spawner === null) {
      const problem = state.unavailable ?? { lacks: "no session helper", remediation: setupCommand };
      throw new ServiceError(
        "service_unavailable",
        `Sandboxes are not available on this server: ${problem.lacks}`,
        {
          remediation: problem.remediation,
        },
      );
    }
    return { cgroups: state.cgroups, helperPath: state.helperPath, spawner: state.spawner };
  }

  const diskMount = (id: string) => join(mountDirectory, id);
  const creatingMarker = (id: string) => join(records.directory(id), "creating");

  /**
   * Mounts the disks of the sandboxes found on disk (a restart, or a reboot that emptied /run) and
   * starts their session inits in the background (an exec waits for its own).
   */
  async function adoptDisks(state: AvailableState): Promise<void> {
    const present = await mountedPaths();
    for (const id of await records.ids()) {
      if (existsSync(creatingMarker(id))) {
        // Half made when the last server died: never handed out, so nothing of it is kept.
        await removeSandbox(id, state.cgroups);
        logger.info({ sandboxId: id }, "removed a sandbox whose creation a crash interrupted");
        continue;
      }
      const record = records.loadSync(id);
      if (record === null || typeof record.uid !== "number" || !existsSync(records.imageFile(id))) continue;
      try {
        if (!present.has(diskMount(record.id))) {
          await mountDisk(records.imageFile(record.id), diskMount(record.id));
        }
        await mountVolumes(record);
        await mountImage(record);
        if (record.egressHosts.length > 0)
          await mkdir(egressHostDirectory(diskMount(record.id)), { recursive: true });
        startInBackground(record, state);
        startEgress(record, state);
      } catch (error) {
        logger.error({ sandboxId: record.id, error: String(error) }, "could not mount a sandbox disk");
      }
      mounted.add(record.id);
    }
  }

  // A custom image's layer, bound read-only where bwrap (running as the session's uid) can reach
  // it: the data directory's parents may be closed to other users. Shared by every session of it.
  const imageMount = (layerPath: string) => join(mountDirectory, ".images", basename(layerPath));

  async function mountImage(record: SandboxRecord): Promise<void> {
    const layerPath = record.image?.layerPath;
    if (!layerPath) return;
    const target = imageMount(layerPath);
    if ((await mountedPaths()).has(target)) return;
    await mkdir(target, { recursive: true, mode: 0o755 });
    await bindReadOnly(layerPath, target);
  }

  async function mountVolumes(record: SandboxRecord): Promise<void> {
    for (const [index, mount] of record.volumeMounts.entries()) {
      const source = await volumeSource(mount.volumeId, mount.sizeBytes);
      await handOverTree(source, ownerOf(record));
      await mountVolume(source, diskMount(record.id), index);
    }
  }

  const volumesMounting = new Map<string, Promise<string>>();
  const volumeImage = (id: string) => join(volumesDirectory, `${id}.img`);
  const volumeHostMount = (id: string) => join(mountDirectory, ".volumes", id);

  /**
   * Where a volume's data is on the host, mounted once however many sandboxes bind it (two
   * mounts of one ext4 image would corrupt it): its disk image, made at its size if the volume
   * predates it, mounted under the mount directory. A volume kept as a plain directory by an
   * older version stays one (without a size limit).
   */
  function volumeSource(id: string, sizeBytes: number | undefined): Promise<string> {
    // One mount at a time per volume: two creates mounting it together must not mount it twice.
    const previous = volumesMounting.get(id) ?? Promise.resolve("");
    const next = previous.catch(() => "").then(() => mountVolumeOnce(id, sizeBytes));
    volumesMounting.set(id, next);
    void next
      .finally(() => {
        if (volumesMounting.get(id) === next) volumesMounting.delete(id);
      })
      .catch(() => {});
    return next;
  }

  async function mountVolumeOnce(id: string, sizeBytes: number | undefined): Promise<string> {
    const legacy = join(volumesDirectory, id);
    if (!existsSync(volumeImage(id)) && existsSync(legacy)) return legacy;
    const mountPoint = volumeHostMount(id);
    if ((await mountedPaths()).has(mountPoint)) return mountPoint;
    if (!existsSync(volumeImage(id))) await formatVolume(volumeImage(id), sizeBytes ?? defaultVolumeBytes);
    await mountDisk(volumeImage(id), mountPoint);
    // A fresh file system's lost+found is not the volume's content (e2fsck makes it again if needed).
    await rmdir(join(mountPoint, "lost+found")).catch(() => {});
    return mountPoint;
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

  async function ensureCgroups(cgroups: CgroupManager, record: SandboxRecord): Promise<void> {
    if (preparedCgroups.has(record.id)) return;
    await cgroups.prepareSandbox(record.id, sizes[record.size]);
    preparedCgroups.add(record.id);
  }

  const sessions = createSessionManager({
    logger,
    sizes,
    bubblewrapPath,
    systemArguments,
    seccompFile,
    mountsOf,
    ensureCgroups,
    isClosed: () => closed,
  });
  const { startInBackground } = sessions;
  const egress = createSessionEgress({ allowPrivateEgress: false, ...settings.egress, logger });
  // Per granted session: its proxy and forwarder, started with the session; execs wait for them.
  const egressReady = new Map<string, Promise<void>>();

  function startEgress(record: SandboxRecord, state: AvailableState): void {
    if (record.egressHosts.length === 0) return;
    const ready = (async () => {
      await egress.start(record.id, record.egressHosts, diskMount(record.id));
      const forwarder = await sessions.startProcess(record, state, forwarderCommand);
      await new Promise<void>((resolve, reject) => {
        forwarder.stdout.once("data", () => resolve());
        void forwarder.exited.then((code) => reject(new Error(`the egress forwarder exited (${code})`)));
      });
    })();
    ready.catch((error: unknown) =>
      logger.error({ sandboxId: record.id, error: String(error) }, "could not start a sandbox's egress"),
    );
    egressReady.set(record.id, ready);
  }

  function mountsOf(record: SandboxRecord): ExecMounts {
    return {
      etc: etcMountPoint(mountDirectory),
      disk: diskMount(record.id),
      sharedMemoryBytes: Math.floor(sizes[record.size].memoryBytes / 4),
      volumes: rootsOf(record, record.id)
        .slice(2)
        .map((root) => ({ hostPath: root.hostPath, mountPath: root.sandboxPath })),
      imageLayers: record.image?.layerPath ? imageLayerMounts(imageMount(record.image.layerPath)) : [],
      egress: record.egressHosts.length > 0 ? egressHostDirectory(diskMount(record.id)) : null,
    };
  }

  return {
    name: "local",
    createsAlone: true,

    create(spec) {
      const work = createSandbox(spec);
      pendingCreates.add(work);
      const forget = () => pendingCreates.delete(work);
      work.then(forget, forget);
      return work;
    },

    async destroy(id) {
      if (!safeId.test(id) || (await ready).unavailable !== null) return;
      await sessions.terminateRunning(id);
      await sessions.killInit(id);
      egressReady.delete(id);
      await egress.stop(id);
      await removeSandbox(id);
    },

    async createVolume(spec) {
      if (!safeId.test(spec.id)) throw new ServiceError("validation_error", "Invalid volume id");
      await mkdir(volumesDirectory, { recursive: true, mode: 0o700 });
      if (!existsSync(volumeImage(spec.id))) await formatVolume(volumeImage(spec.id), spec.sizeBytes);
      return { pvcName: null };
    },

    async deleteVolume(id) {
      if (!safeId.test(id)) return;
      await unmountDisk(volumeHostMount(id));
      await rm(volumeImage(id), { force: true });
      await rm(join(volumesDirectory, id), { recursive: true, force: true });
    },

    async snapshot(id, snapshotId) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      if (!safeId.test(id) || !safeId.test(snapshotId))
        throw new ServiceError("validation_error", "Invalid sandbox or snapshot id");
      await records.load(id);
      const sizeBytes = await snapshots.take(snapshotId, records.imageFile(id), diskMount(id));
      return { sizeBytes, handle: null };
    },

    async deleteSnapshot(snapshotId) {
      if (safeId.test(snapshotId)) await snapshots.remove(snapshotId);
    },

    async volumeUsedBytes(id) {
      if (!safeId.test(id) || !existsSync(volumeImage(id))) return null;
      return usedBytes(await volumeSource(id, undefined));
    },

    unavailable() {
      // A start-up that failed otherwise fails each operation with its own error, as before.
      return ready.then(
        (state) => state.unavailable,
        () => null,
      );
    },

    async list() {
      // A server that cannot run sandboxes holds none.
      if ((await ready).unavailable !== null) return [];
      return records.ids();
    },

    async exec(id, request) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      const record = await records.load(id);
      // A granted session's proxy and forwarder first (a failure there shows in the exec).
      await egressReady.get(id)?.catch(() => {});
      return sessions.execute(record, await started(), request);
    },

    async startProcess(id, command) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      const record = await records.load(id);
      return sessions.startProcess(record, await started(), command);
    },

    async spawnProcess(id, request) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      checkProcessRequest(request);
      const record = await records.load(id);
      const background = request.kind === "command";
      if (background) await egressReady.get(id)?.catch(() => {});
      // The shell only hands over to the program (same pid), with the arguments exactly as given.
      const command = `exec ${request.command.map(shellQuote).join(" ")}`;
      const session = await sessions.startProcess(
        record,
        await started(),
        command,
        request.env,
        // A tenant's command sees what an exec sees; only language servers get their installation.
        background ? undefined : languageServers,
      );
      // A language server's stderr is read and dropped, so the process never blocks on it; its
      // first bytes say whether the session helper could start it at all.
      const startFailure = background
        ? undefined
        : setupFailureOf(session, () => processLimitReached(record.size, sizes[record.size].maxProcesses));
      return {
        stdin: Writable.toWeb(session.stdin) as WritableStream<Uint8Array>,
        stdout: Readable.toWeb(session.stdout) as ReadableStream<Uint8Array>,
        stderr: background ? (Readable.toWeb(session.stderr) as ReadableStream<Uint8Array>) : undefined,
        exited: session.exitCode,
        kill: () => void session.kill(),
        terminate: () => void session.terminate().catch(() => {}),
        ...(startFailure && { startFailure }),
      };
    },

    files(id): SandboxFileSystem {
      const record = records.loadSync(id);
      return fileThread.files(rootsOf(record, id), record === null ? null : ownerOf(record));
    },

    async close() {
      closed = true;
      // The start-up work (the /etc disk, cgroup detection) must not outlive the runtime.
      const state = await ready.catch(() => null);
      await sessions.terminateAll();
      await state?.cgroups?.settle();
      await Promise.allSettled([...pendingCreates]);
      // Before the disks go: each init holds its sandbox's mounts.
      await sessions.killAllInits();
      await egress.stopAll();
      await state?.spawner?.close();
      await state?.spares?.close();
      await fileThread.close();
      // Disks stay on the data directory; the next start mounts them again. Every disk under the
      // mount directory goes, not only the ones this runtime mounted: nothing else uses it.
      const present = [...(await mountedPaths())].filter((path) => path.startsWith(`${mountDirectory}/`));
      const disks = new Set([...mounted].map(diskMount));
      for (const path of present) if (!path.slice(mountDirectory.length + 1).includes("/")) disks.add(path);
      for (const disk of disks) await unmountDisk(disk).catch(() => {});
      mounted.clear();
      const volumeMounts = present.filter(
        (path) => path.startsWith(`${volumeHostMount("")}`) || path.startsWith(`${imageMount("")}`),
      );
      for (const volume of volumeMounts) await unmountDisk(volume).catch(() => {});
      // Empty directories only (rmdir): what is still mounted or holds files stays.
      for (const directory of [".volumes", ".images", ".etc"])
        await rmdir(join(mountDirectory, directory)).catch(() => {});
      // Gone unless something is still mounted there.
      await rmdir(mountDirectory).catch(() => {});
    },
  };

  /**
   * Host tools on the path of a create (mount) run through the serving helper: starting them
   * from the server would fork the whole server first.
   */
  function hostRunner(state: AvailableState): HostRunner {
    const { spawner } = state;
    return (file, argumentsList) =>
      new Promise<void>((resolve, reject) => {
        let errors = "";
        const path = file.startsWith("/")
          ? file
          : hostToolDirectories
              .map((directory) => join(directory, file))
              .find((candidate) => existsSync(candidate));
        if (path === undefined) {
          reject(new Error(`${file} is not installed`));
          return;
        }
        const command = spawner.runHost([path, ...argumentsList], {
          stdout: () => {},
          stderr: (chunk) => {
            if (errors.length < 4096) errors += chunk.toString("utf8");
          },
        });
        command.status.then(
          (status) =>
            status === 0
              ? resolve()
              : reject(
                  new Error(
                    `${file} ${argumentsList.join(" ")}: ${errors.trim() || `wait status ${status}`}`,
                  ),
                ),
          reject,
        );
      });
  }

  async function createSandbox(spec: SandboxSpec): Promise<SandboxConnectInfo> {
    if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
    if (!safeId.test(spec.id)) throw new ServiceError("validation_error", "Invalid sandbox id");
    for (const mount of spec.volumeMounts) checkVolumeMount(mount);
    const state = await started();
    const { cgroups } = state;
    const { spares } = await ready;
    const record: SandboxRecord = {
      id: spec.id,
      size: spec.size,
      egressHosts: spec.egressHosts,
      volumeMounts: spec.volumeMounts.map((mount) => ({
        volumeId: mount.volumeId,
        mountPath: mount.mountPath.replace(/\/+$/, ""),
        sizeBytes: mount.sizeBytes,
      })),
      image: spec.image,
      uid: await records.allocateUserId(spec.id),
    };
    try {
      await mkdir(records.directory(spec.id), { recursive: true, mode: 0o700 });
      // Marks a create in progress until the sandbox is whole: a server that dies before then
      // leaves it, and the next one removes what was made (adoptDisks).
      await writeFile(creatingMarker(spec.id), "");
      // The record first: it holds the uid, and destroy or a restart can find the disk by it.
      await records.save(record);
      const image = records.imageFile(spec.id);
      const bytes = diskBytes(spec.storageGb ?? defaultStorageGb[spec.size]);
      if (spec.fromSnapshot) {
        await snapshots.restore(spec.fromSnapshot.id, image, bytes);
        await mountDisk(image, diskMount(spec.id), hostRunner(state));
        // The snapshot's files belonged to its sandbox's uid; this sandbox has its own.
        for (const name of ["workspace", "tmp"])
          await handOverTree(join(diskMount(spec.id), name), ownerOf(record));
      } else {
        const spare = closed ? null : await spares?.take(bytes);
        if (spare) await rename(spare, image);
        else await formatDisk(image, bytes);
        await mountNewDisk(image, diskMount(spec.id), ownerOf(record), hostRunner(state));
      }
      mounted.add(spec.id);
      await mountVolumes(record);
      await mountImage(record);
      if (record.egressHosts.length > 0)
        await mkdir(egressHostDirectory(diskMount(spec.id)), { recursive: true });
      if (cgroups !== null) await ensureCgroups(cgroups, record);
      await rm(creatingMarker(spec.id));
    } catch (error) {
      await removeSandbox(spec.id).catch(() => {});
      // A host out of room says so (429 global_capacity_reached); anything else is the runtime's.
      if (error instanceof ServiceError && error.code === "global_capacity_reached") throw error;
      throw new ServiceError("sandbox_operation_failed", "The sandbox could not be created", {
        cause: error,
      });
    }
    // The first exec waits for it; create need not.
    startInBackground(record, state);
    startEgress(record, state);
    return { podName: null, note: "Local bubblewrap sandbox; use exec and the file operations." };
  }

  /** `cgroups` is given while `ready` is still settling (adoptDisks runs inside it). */
  async function removeSandbox(id: string, given?: CgroupManager | null): Promise<void> {
    const cgroups = given === undefined ? (await ready).cgroups : given;
    if (cgroups !== null) await cgroups.destroySandbox(id);
    preparedCgroups.delete(id);
    await unmountDisk(diskMount(id));
    mounted.delete(id);
    records.forget(id);
    await rm(records.directory(id), { recursive: true, force: true });
  }
}

/** Installs the host tools (scripts/setup.sh); the same words wherever a fix is named. */
const setupCommand = "sudo npm run setup";

const cgroupRemediation =
  "run the server as root on a host whose cgroup v1 memory, pids and cpu hierarchies are mounted and writable (npm run setup reports them; plugins/sandbox-local/README.md)";

/**
 * What this machine lacks for local sandboxes, checked before anything is set up: bubblewrap, and
 * root (switching to a session's uid, loop-mounting its disk and writing cgroups all need it).
 */
function hostProblem(bubblewrapPath: string): RuntimeUnavailable | null {
  const lacks: string[] = [];
  const fixes: string[] = [];
  if (!existsSync(bubblewrapPath)) {
    lacks.push(`bubblewrap (no ${bubblewrapPath})`);
    fixes.push(`${setupCommand} (or SVC_BUBBLEWRAP_PATH=<path of bwrap>)`);
  }
  if (process.getuid?.() !== 0) {
    lacks.push("root (each sandbox gets its own host uid, a loop-mounted disk and cgroups)");
    fixes.push("start the server as root (sudo npm start, or deploy/systemd/cairn.service)");
  }
  if (lacks.length === 0) return null;
  return { lacks: `they need ${lacks.join(" and ")}`, remediation: fixes.join(", then ") };
}

/**
 * Reads and drops a session process's stderr, keeping its first line: a process that ended with
 * the set-up failure code and the helper's process-limit line never ran its command, because the
 * sandbox's own processes hold every slot (the caller's limit, not a runtime failure).
 */
function setupFailureOf(
  session: SessionProcess,
  limitReached: () => ServiceError,
): Promise<ServiceError | null> {
  let head = "";
  session.stderr.on("data", (chunk: Buffer) => {
    if (head.length < processLimitLine.length) head += chunk.toString("utf8", 0, processLimitLine.length);
  });
  const drained = new Promise<void>((resolve) => {
    session.stderr.once("close", resolve);
    session.stderr.once("end", resolve);
    session.stderr.once("error", () => resolve());
  });
  return Promise.all([session.exitCode, drained]).then(([code]) =>
    code === setupFailureExitCode && head.startsWith(processLimitLine) ? limitReached() : null,
  );
}

/** Arguments and variables go to the helper as lines of text: no NUL, no newline in a variable. */
function checkProcessRequest(request: ProcessRequest): void {
  const validArguments = request.command.length > 0 && request.command.every((part) => !part.includes("\0"));
  const validEnvironment = Object.entries(request.env ?? {}).every(
    ([name, value]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !/[\0\n]/.test(value),
  );
  if (!validArguments || !validEnvironment) {
    throw new ServiceError("validation_error", "Invalid process request", {
      details: { command: request.command, env: Object.keys(request.env ?? {}) },
    });
  }
}

function checkVolumeMount(mount: { volumeId: string; mountPath: string }): void {
  const path = mount.mountPath.replace(/\/+$/, "");
  const valid =
    safeId.test(mount.volumeId) &&
    path.startsWith("/") &&
    path.length > 1 &&
    !path.split("/").some((part) => part === ".." || part === ".") &&
    !path.includes("//") &&
    !path.includes("\0");
  if (!valid) {
    throw new ServiceError("validation_error", "Invalid volume mount", { details: { mount } });
  }
}
