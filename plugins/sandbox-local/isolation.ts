/**
 * Entry for another jail on this host that is to hold as a session does (the image builder,
 * plugins/image-builder-local): the pieces of a session's isolation, exported as they are so
 * that there is one of each. The session helper's SESSION request (session-spawner.ts) starts a
 * bwrap in given cgroups with the rlimits, the seccomp filter on `seccompDescriptor`, no groups,
 * a uid of its own and no_new_privs; session-disk.ts makes, mounts and removes a preallocated
 * ext4 disk; cgroups.ts makes the memory, pids and cpu cgroups and sweeps them.
 */
export { hostSystemArguments } from "./bubblewrap-arguments.ts";
export { type CgroupManager, detectCgroupsV1 } from "./cgroups.ts";
export { limitSettings, seccompDescriptor } from "./exec.ts";
export { defaultUserIds, type UserIdRange } from "./sandbox-records.ts";
export { buildSeccompFilter } from "./seccomp.ts";
export {
  ensureHostRoom,
  formatDisk,
  mountDisk,
  mountedPaths,
  unmountDisk,
  usedBytes,
} from "./session-disk.ts";
export { buildSessionHelper } from "./session-helper.ts";
export { createSessionSpawner, type SessionSpawner } from "./session-spawner.ts";
export type { SizeLimits } from "./sizes.ts";
