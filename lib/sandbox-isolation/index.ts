/**
 * Entry of the sandbox isolation library: the pieces of a jail on this host, one of each, shared
 * by the local sandbox runtime (plugins/sandbox-local) and the local image builder
 * (plugins/image-builder-local) so that a build holds as a sandbox's session does. The session
 * helper (session-helper.c, served by session-spawner.ts) starts a bwrap in given cgroups with
 * the rlimits (limits.ts), the seccomp filter (seccomp.ts) on `seccompDescriptor`, no groups, a
 * host uid of its own (user-ids.ts) and no_new_privs; disks.ts makes, mounts and removes a
 * preallocated ext4 disk; cgroups.ts makes the memory, pids and cpu cgroups and sweeps them.
 */
export { type CgroupManager, detectCgroupsV1, sandboxCpuShares } from "./cgroups.ts";
export {
  ensureHostRoom,
  formatDisk,
  type HostRunner,
  hostReserveBytes,
  mountDisk,
  mountedPaths,
  runHostTool,
  unmountDisk,
  usedBytes,
  writableBytes,
} from "./disks.ts";
export { hostSystemArguments } from "./host-system.ts";
export { type LimitOptions, limitSettings, type SizeLimits, seccompDescriptor } from "./limits.ts";
export { buildSeccompFilter } from "./seccomp.ts";
export { buildSessionHelper } from "./session-helper.ts";
export { createSessionSpawner, type SessionSpawner } from "./session-spawner.ts";
export { defaultUserIds, type UserIdRange } from "./user-ids.ts";
