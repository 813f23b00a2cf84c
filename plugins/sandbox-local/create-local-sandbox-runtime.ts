/**
 * The local sandbox runtime: one bubblewrap sandbox per session on this machine. A sandbox is a
 * directory `<dataDir>/sandboxes/<id>/` (workspace/, tmp/, sandbox.json) plus, where cgroup v1 is
 * writable, memory/pids/cpu cgroups; every exec is a fresh `bwrap … /bin/sh -c <command>` that
 * joins them. Nothing runs between execs (background processes are out of scope).
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "../../core/errors.ts";
import { type Logger, silentLogger } from "../../core/ports/logger.ts";
import type {
  ExecRequest,
  ExecResult,
  SandboxFileSystem,
  SandboxRuntime,
  SandboxSpec,
} from "../../core/ports/sandbox-runtime.ts";
import { bubblewrapArguments, buildSandboxEtc, hostSystemArguments } from "./bubblewrap-arguments.ts";
import { type CgroupManager, detectCgroupsV1 } from "./cgroups.ts";
import { runBubblewrap } from "./exec.ts";
import { createSandboxFileSystem } from "./file-system.ts";
import { createDescriptorMask } from "./inherited-descriptors.ts";
import type { SandboxRoot } from "./path-resolution.ts";
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
}

type SandboxRecord = Pick<
  SandboxSpec,
  "id" | "accountId" | "size" | "storageGb" | "egressHosts" | "volumeMounts"
>;

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
  const bubblewrapPath = settings.bubblewrapPath ?? "/usr/bin/bwrap";
  const sandboxesDirectory = join(settings.dataDir, "sandboxes");
  const volumesDirectory = join(settings.dataDir, "volumes");
  const etcDirectory = join(settings.dataDir, "system", "etc");
  const systemArguments = hostSystemArguments(etcDirectory);
  const descriptorMask = createDescriptorMask();
  const records = new Map<string, SandboxRecord>();
  const preparedCgroups = new Set<string>();
  const running = new Map<string, Set<RunningExec>>();
  let closed = false;

  const ready = (async () => {
    await mkdir(sandboxesDirectory, { recursive: true, mode: 0o700 });
    await mkdir(volumesDirectory, { recursive: true, mode: 0o700 });
    await buildSandboxEtc(etcDirectory);
    let cgroups: CgroupManager | null = null;
    if (settings.useCgroups !== false) {
      const detection = await detectCgroupsV1(settings.cgroupParent ?? "cairn");
      cgroups = detection.manager;
      if (detection.manager === null) {
        logger.warn(
          { reason: detection.reason },
          "cgroup v1 is not usable: sandboxes get rlimits only (file size, CPU time, open files, address space); no per-sandbox memory, process or CPU share limit",
        );
      }
    }
    return { cgroups };
  })();
  // Keep an early failure for the first call instead of an unhandled rejection.
  ready.catch(() => {});

  const sandboxDirectory = (id: string) => join(sandboxesDirectory, id);
  const recordFile = (id: string) => join(sandboxDirectory(id), "sandbox.json");

  function loadRecordSync(id: string): SandboxRecord | null {
    const cached = records.get(id);
    if (cached !== undefined) return cached;
    if (!safeId.test(id) || !existsSync(recordFile(id))) return null;
    const record = JSON.parse(readFileSync(recordFile(id), "utf8")) as SandboxRecord;
    records.set(id, record);
    return record;
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
      { sandboxPath: "/workspace", hostPath: join(sandboxDirectory(id), "workspace") },
      { sandboxPath: "/tmp", hostPath: join(sandboxDirectory(id), "tmp") },
    ];
    for (const mount of record?.volumeMounts ?? []) {
      roots.push({ sandboxPath: mount.mountPath, hostPath: join(volumesDirectory, mount.volumeId) });
    }
    return roots;
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
    const { cgroups } = await ready;
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
          workspace: roots[0].hostPath,
          tmp: roots[1].hostPath,
          volumes: roots.slice(2).map((root) => ({ hostPath: root.hostPath, mountPath: root.sandboxPath })),
        },
        request.command,
      ),
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

    async create(spec) {
      if (closed) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      if (!safeId.test(spec.id)) throw new ServiceError("validation_error", "Invalid sandbox id");
      for (const mount of spec.volumeMounts) checkVolumeMount(mount);
      if (!existsSync(bubblewrapPath)) {
        throw new ServiceError("sandbox_operation_failed", "The local sandbox runtime is not available", {
          cause: new Error(`bubblewrap not found at ${bubblewrapPath}`),
        });
      }
      const { cgroups } = await ready;
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
      };
      try {
        await mkdir(join(sandboxDirectory(spec.id), "workspace"), { recursive: true });
        await mkdir(join(sandboxDirectory(spec.id), "tmp"), { recursive: true, mode: 0o1777 });
        for (const mount of record.volumeMounts) {
          await mkdir(join(volumesDirectory, mount.volumeId), { recursive: true });
        }
        await writeFile(recordFile(spec.id), JSON.stringify(record));
        records.set(spec.id, record);
        if (cgroups !== null) await ensureCgroups(cgroups, record);
      } catch (error) {
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
    },

    async destroy(id) {
      if (!safeId.test(id)) return;
      const { cgroups } = await ready;
      await terminateRunning(id);
      if (cgroups !== null) await cgroups.destroySandbox(id);
      preparedCgroups.delete(id);
      records.delete(id);
      await rm(sandboxDirectory(id), { recursive: true, force: true });
    },

    async list() {
      await ready;
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
      return createSandboxFileSystem(rootsOf(loadRecordSync(id), id));
    },

    async close() {
      closed = true;
      // The start-up work (the sandbox /etc, cgroup detection) must not outlive the runtime.
      const started = await ready.catch(() => null);
      await Promise.all([...running.keys()].map(terminateRunning));
      await started?.cgroups?.settle();
    },
  };
}

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
