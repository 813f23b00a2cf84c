/**
 * cgroup v1 limits for local sandboxes: one child per sandbox under the server's own cgroup in
 * the memory, pids and cpu hierarchies (`…/<parent>/<sandbox id>`), and in the pids hierarchy
 * one grandchild per exec so that an exec's processes can be found and killed without touching
 * a concurrent exec of the same sandbox. The session's init joins the sandbox's own cgroups
 * before bwrap starts, and the session helper joins an exec's before it enters the sandbox, so no
 * sandbox process ever runs outside them.
 */
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SizeLimits } from "./limits.ts";

const controllers = ["memory", "pids", "cpu"] as const;
/** The sandboxes' parent's weight in the cpu hierarchy; a thread of the server weighs 1024. */
export const sandboxCpuShares = 256;
type Controller = (typeof controllers)[number];

export interface CgroupManager {
  /** Parent directories, one per controller (for the README and the tests). */
  readonly parents: Readonly<Record<Controller, string>>;
  /** Creates (or re-applies limits to) the cgroups of one sandbox. */
  prepareSandbox(id: string, limits: SizeLimits): Promise<void>;
  /** The `tasks` files of the sandbox's own cgroups (its session init joins them). */
  sandboxTaskFiles(id: string): string[];
  /** Creates the exec's own pids cgroup; returns the `tasks` files the helper must join. */
  prepareExec(id: string, execName: string): Promise<string[]>;
  /** SIGKILLs every process of one exec, waits until none is left and removes its cgroup. */
  finishExec(id: string, execName: string): Promise<void>;
  /** SIGKILLs every process of the sandbox and removes its cgroups; unknown ids succeed. */
  destroySandbox(id: string): Promise<void>;
  /** Waits for the exec cgroups still being removed in the background. */
  settle(): Promise<void>;
}

export type CgroupDetection = { manager: CgroupManager } | { manager: null; reason: string };

interface ProcessCgroupFiles {
  cgroupFile: string;
  mountInfoFile: string;
}

/** Finds where the server's own cgroups live in each v1 hierarchy and checks they are writable. */
export async function detectCgroupsV1(
  parentName: string,
  files: ProcessCgroupFiles = { cgroupFile: "/proc/self/cgroup", mountInfoFile: "/proc/self/mountinfo" },
): Promise<CgroupDetection> {
  let ownCgroups: string;
  let mountInfo: string;
  try {
    ownCgroups = await readFile(files.cgroupFile, "utf8");
    mountInfo = await readFile(files.mountInfoFile, "utf8");
  } catch (error) {
    return { manager: null, reason: `cannot read cgroup information: ${String(error)}` };
  }
  const parents = {} as Record<Controller, string>;
  for (const controller of controllers) {
    const ownPath = findOwnCgroupPath(ownCgroups, controller);
    const mount = findControllerMount(mountInfo, controller);
    if (ownPath === null || mount === null) {
      return { manager: null, reason: `no cgroup v1 ${controller} hierarchy` };
    }
    const relative = ownPath.startsWith(mount.root) ? ownPath.slice(mount.root.length) : ownPath;
    parents[controller] = join(mount.mountPoint, relative, parentName);
  }
  try {
    for (const controller of controllers) await mkdir(parents[controller], { recursive: true });
    // All sandboxes together weigh a quarter of one server thread when the CPU is short: the
    // server answering every account comes first. Idle CPU is theirs all the same (up to each
    // sandbox's quota); shares only divide what is contended.
    await writeFile(join(parents.cpu, "cpu.shares"), String(sandboxCpuShares));
  } catch (error) {
    return { manager: null, reason: `cgroups are not writable: ${String(error)}` };
  }
  return { manager: createCgroupManager(parents) };
}

function findOwnCgroupPath(ownCgroups: string, controller: Controller): string | null {
  for (const line of ownCgroups.split("\n")) {
    const [, list, ...path] = line.split(":");
    if (list?.split(",").includes(controller)) return path.join(":");
  }
  return null;
}

function findControllerMount(mountInfo: string, controller: Controller) {
  for (const line of mountInfo.split("\n")) {
    const [before, after] = line.split(" - ");
    if (!after) continue;
    const [fileSystemType, , superOptions = ""] = after.split(" ");
    if (fileSystemType !== "cgroup" || !superOptions.split(",").includes(controller)) continue;
    const fields = before.split(" ");
    return { root: fields[3], mountPoint: fields[4] };
  }
  return null;
}

function createCgroupManager(parents: Record<Controller, string>): CgroupManager {
  const sandboxDirectory = (controller: Controller, id: string) => join(parents[controller], id);
  const execDirectory = (id: string, execName: string) => join(parents.pids, id, execName);
  const pendingRemovals = new Set<Promise<void>>();

  return {
    parents,
    async prepareSandbox(id, limits) {
      // The three hierarchies are independent: set up side by side (a create waits for this).
      const memory = sandboxDirectory("memory", id);
      const cpu = sandboxDirectory("cpu", id);
      const period = 100_000;
      await Promise.all([
        (async () => {
          await mkdir(memory, { recursive: true });
          await writeFile(join(memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
          // Without swap accounting the file is missing; with it, swap must not extend the limit.
          await writeFile(join(memory, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes)).catch(
            () => {},
          );
        })(),
        (async () => {
          await mkdir(sandboxDirectory("pids", id), { recursive: true });
          await writeFile(join(sandboxDirectory("pids", id), "pids.max"), String(limits.maxProcesses));
        })(),
        (async () => {
          await mkdir(cpu, { recursive: true });
          await writeFile(join(cpu, "cpu.cfs_period_us"), String(period));
          await writeFile(join(cpu, "cpu.cfs_quota_us"), String(Math.round(limits.cpuCores * period)));
        })(),
      ]);
    },
    sandboxTaskFiles(id) {
      return controllers.map((controller) => join(sandboxDirectory(controller, id), "tasks"));
    },
    async prepareExec(id, execName) {
      const execCgroup = execDirectory(id, execName);
      await mkdir(execCgroup);
      return [
        join(sandboxDirectory("memory", id), "tasks"),
        join(sandboxDirectory("cpu", id), "tasks"),
        join(execCgroup, "tasks"),
      ];
    },
    async finishExec(id, execName) {
      const directory = execDirectory(id, execName);
      await killUntilEmpty(directory);
      // Exited processes keep a cgroup busy until the kernel releases them, a few milliseconds
      // later; the exec need not wait for that (destroy removes whatever is left).
      const removal = removeWhenReleased(directory).finally(() => pendingRemovals.delete(removal));
      pendingRemovals.add(removal);
    },
    async settle() {
      await Promise.all([...pendingRemovals]);
    },
    async destroySandbox(id) {
      // The pids hierarchy holds every process (exec children included): empty it first.
      await killAndRemove(sandboxDirectory("pids", id));
      await killAndRemove(sandboxDirectory("memory", id));
      await killAndRemove(sandboxDirectory("cpu", id));
    },
  };
}

/** Kills every process in a cgroup and its children, then removes them; a missing cgroup is fine. */
async function killAndRemove(directory: string): Promise<void> {
  let children: string[];
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    children = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const child of children) await killAndRemove(join(directory, child));
  for (let round = 0; ; round++) {
    const processIds = await readProcessIds(directory);
    for (const processId of processIds) killQuietly(processId);
    if (processIds.length === 0) {
      try {
        await rmdir(directory);
        return;
      } catch (error) {
        if (isMissing(error)) return;
        // EBUSY: a process was still exiting (or forked between reads); kill again.
        if ((error as NodeJS.ErrnoException).code !== "EBUSY" || round > 1000) throw error;
      }
    }
    if (round > 1000) throw new Error(`cgroup ${directory} does not empty`);
    await new Promise((resolve) => setTimeout(resolve, round < 20 ? 1 : 10));
  }
}

async function killUntilEmpty(directory: string): Promise<void> {
  for (let round = 0; round <= 1000; round++) {
    const processIds = await readProcessIds(directory);
    if (processIds.length === 0) return;
    for (const processId of processIds) killQuietly(processId);
    await new Promise((resolve) => setTimeout(resolve, round < 20 ? 1 : 10));
  }
  throw new Error(`cgroup ${directory} does not empty`);
}

async function removeWhenReleased(directory: string): Promise<void> {
  for (let delay = 2; delay < 2000; delay *= 2) {
    try {
      await rmdir(directory);
      return;
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code !== "EBUSY") return;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function readProcessIds(directory: string): Promise<number[]> {
  try {
    const text = await readFile(join(directory, "cgroup.procs"), "utf8");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map(Number);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function killQuietly(processId: number): void {
  try {
    process.kill(processId, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function isMissing(error: unknown): boolean {
  // ENODEV: the cgroup was removed (by a concurrent destroy) while we read one of its files.
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENODEV";
}
