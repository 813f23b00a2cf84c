/**
 * What bounds one jail (a sandbox, an image build): cgroup limits for the whole jail, rlimits for
 * each process, and the session helper's settings lines that apply them before the jail's first
 * process runs (session-helper.c).
 */

export interface SizeLimits {
  /** cgroup memory.limit_in_bytes (RAM of all processes of one sandbox together). */
  memoryBytes: number;
  /** cgroup pids.max (processes and threads of one sandbox together). */
  maxProcesses: number;
  /** cgroup cpu.cfs_quota_us / cpu.cfs_period_us. */
  cpuCores: number;
  /** RLIMIT_FSIZE: the largest file one process may write. */
  maxFileBytes: number;
  /** RLIMIT_CPU per process, in seconds. */
  cpuSeconds: number;
  /** RLIMIT_NOFILE per process. */
  maxOpenFiles: number;
}

/** The descriptor the serving helper opens the seccomp filter on for bwrap's `--seccomp`. */
export const seccompDescriptor = 9;

export interface LimitOptions {
  /** cgroup `tasks` files the helper joins first; empty when cgroups are unavailable. */
  cgroupTaskFiles: string[];
  limits: SizeLimits;
  /** Without cgroups the memory limit falls back to RLIMIT_AS per process. */
  addressSpaceLimit: boolean;
}

/** The helper's settings for cgroups and rlimits, shared by execs and the session's bwrap. */
export function limitSettings(options: LimitOptions): string[] {
  const { limits } = options;
  const lines: string[] = [];
  for (const file of options.cgroupTaskFiles) lines.push(`tasks ${file}`);
  lines.push(
    `rlimit fsize ${limits.maxFileBytes}`,
    `rlimit cpu ${limits.cpuSeconds}`,
    `rlimit nofile ${limits.maxOpenFiles}`,
    "rlimit core 0",
    // RLIMIT_NPROC counts the processes of the session's uid: with a uid per session it is a
    // per-sandbox process limit even where cgroups are not available.
    `rlimit nproc ${limits.maxProcesses}`,
  );
  if (options.addressSpaceLimit) lines.push(`rlimit as ${limits.memoryBytes}`);
  return lines;
}
