/**
 * Persistent volumes (docs/sandboxes.md#volumes): where a volume may be mounted, how big it is
 * for the runtime, provisioning after create, and the "no active sandbox mounts it" rule that
 * guards delete. Written once over the storage and runtime ports, shared by both runtimes.
 */
import { ServiceError } from "../../errors.ts";
import type { PlatformServices } from "../../platform-services.ts";
import type { SandboxSessionRecord, VolumeRecord, VolumeStatus } from "../../ports/storage.ts";

const gibibyte = 1024 ** 3;

/** `size_gb` (GiB, like storage_gb) in bytes, rounded up to whole 4 KiB blocks. */
export function volumeSizeBytes(sizeGb: number): number {
  return Math.ceil((sizeGb * gibibyte) / 4096) * 4096;
}

/**
 * Paths a volume may not be mounted at, nor below: the sandbox's own roots (/workspace, /tmp),
 * /mnt (docs/api.md#sandboxes), what the server mounts for it (/cairn: language servers and the
 * egress socket; /opt/cairn: a custom image's layer), and the system directories a sandbox runs
 * from. Nor above one: a volume at /opt would hide /opt/cairn.
 */
export const reservedMountPaths = [
  "/workspace",
  "/tmp",
  "/mnt",
  "/cairn",
  "/opt/cairn",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
  "/var",
];

const mountSegment = /^[A-Za-z0-9._-]+$/;

const isWithin = (path: string, parent: string) => path === parent || path.startsWith(`${parent}/`);

/** Why a mount path is refused, or null: absolute, plain segments, outside every reserved path. */
export function mountPathProblem(path: string): string | null {
  if (!path.startsWith("/") || path.length > 4096) return "must be an absolute path";
  const segments = path.slice(1).split("/");
  if (segments.some((segment) => !mountSegment.test(segment) || segment === "." || segment === "..")) {
    return "must name a directory with plain segments (letters, digits, '.', '_', '-'), no '..' or '//'";
  }
  const reserved = reservedMountPaths.find((parent) => isWithin(path, parent) || isWithin(parent, path));
  return reserved ? `must be outside ${reserved}` : null;
}

/** Two mounts where one would hide or sit inside the other. */
export function overlappingMounts(paths: string[]): [string, string] | null {
  for (const [index, first] of paths.entries()) {
    for (const second of paths.slice(index + 1)) {
      if (isWithin(first, second) || isWithin(second, first)) return [first, second];
    }
  }
  return null;
}

/** Volume ids a session mounts. */
export const mountedVolumeIds = (session: SandboxSessionRecord): string[] =>
  Object.keys(session.grants.volumeMounts ?? {});

/**
 * Gives the volume its storage: the runtime's own (a Kubernetes PVC) when it provisions volumes,
 * otherwise nothing to do (the local runtime makes a volume's directory at its first mount). A
 * failure is kept on the volume (status failed, a reason without internals) and logged.
 */
export async function provisionVolume(
  platform: Pick<PlatformServices, "sandboxRuntime" | "storage" | "logger">,
  volume: VolumeRecord,
): Promise<void> {
  const { sandboxRuntime, storage, logger } = platform;
  if (!sandboxRuntime.createVolume) {
    await storage.volumes.settle(volume.id, { status: "ready", pvcName: null, failureReason: null });
    return;
  }
  await storage.volumes.transition(volume.accountId, volume.id, ["queued"], "creating");
  try {
    const { pvcName } = await sandboxRuntime.createVolume({
      id: volume.id,
      accountId: volume.accountId,
      sizeBytes: volumeSizeBytes(volume.sizeGb),
    });
    await storage.volumes.settle(volume.id, { status: "ready", pvcName, failureReason: null });
  } catch (error) {
    logger.error({ err: error, volumeId: volume.id }, "volume provisioning failed");
    await storage.volumes.settle(volume.id, {
      status: "failed",
      pvcName: null,
      // A refusal the runtime words (the host has no room) is the user's to read; a crash is not.
      failureReason:
        error instanceof ServiceError && error.code === "global_capacity_reached"
          ? error.message
          : "The runtime could not provision the volume's storage",
    });
  }
}

/**
 * Deletes a volume no active sandbox mounts. It is marked deleting first, so a create racing
 * with this delete either sees it gone (404) or is seen here (409): never both succeed. Sessions
 * past their expiry that the reaper has not reached yet are ended here the way it would.
 */
export async function deleteVolume(
  platform: Pick<PlatformServices, "storage" | "sandboxRuntime" | "logger">,
  accountId: string,
  id: string,
  now: Date,
) {
  const { storage, sandboxRuntime, logger } = platform;
  const volume = await storage.volumes.get(accountId, id);
  const usable: VolumeStatus[] = ["queued", "creating", "ready", "failed"];
  if (!volume || !(await storage.volumes.transition(accountId, id, usable, "deleting"))) {
    throw new ServiceError("not_found", "Volume not found");
  }
  const restore = () => storage.volumes.transition(accountId, id, ["deleting"], volume.status);
  try {
    const mounting = (await storage.sandboxSessions.list(accountId, true)).filter((session) =>
      mountedVolumeIds(session).includes(id),
    );
    for (const session of mounting.filter((session) => session.expiresAt <= now)) {
      await sandboxRuntime.destroy(session.id);
      await storage.sandboxSessions.end(session.id, "expired", session.expiresAt);
    }
    if (mounting.some((session) => session.expiresAt > now)) {
      throw new ServiceError("volume_in_use", "The volume is mounted in an active sandbox");
    }
    await sandboxRuntime.deleteVolume?.(id);
  } catch (error) {
    await restore();
    throw error;
  }
  await storage.volumes.delete(accountId, id);
  logger.info({ volumeId: id }, "volume deleted");
}

export interface ResolvedMount {
  volumeId: string;
  mountPath: string;
  sizeBytes: number;
}

const invalidMount = (volumeId: string, message: string) =>
  new ServiceError("validation_error", "Invalid request", {
    details: [{ type: "invalid_mount_path", loc: ["volume_mounts", volumeId], msg: message }],
  });

/**
 * A create's `volume_mounts` checked and resolved: every path absolute, outside the reserved
 * paths and apart from the others (422), every volume the account's and ready (404 not_found).
 */
export async function resolveVolumeMounts(
  platform: Pick<PlatformServices, "storage">,
  accountId: string,
  requested: Record<string, string> | null,
): Promise<ResolvedMount[]> {
  const entries = Object.entries(requested ?? {}).map(([volumeId, path]) => ({
    volumeId,
    mountPath: path.length > 1 ? path.replace(/\/+$/, "") : path,
  }));
  if (entries.length === 0) return [];
  for (const { volumeId, mountPath } of entries) {
    const problem = mountPathProblem(mountPath);
    if (problem) throw invalidMount(volumeId, `Mount path ${problem}`);
  }
  const overlap = overlappingMounts(entries.map((entry) => entry.mountPath));
  if (overlap) {
    const volumeId = entries.find((entry) => entry.mountPath === overlap[1])?.volumeId ?? "";
    throw invalidMount(volumeId, `Mount paths ${overlap[0]} and ${overlap[1]} overlap`);
  }
  const volumes = await requireReadyVolumes(
    platform,
    accountId,
    entries.map((entry) => entry.volumeId),
  );
  return entries.map((entry) => ({
    ...entry,
    sizeBytes: volumeSizeBytes(volumes.get(entry.volumeId)?.sizeGb ?? 0),
  }));
}

/** The volumes by id; 404 when one is not the account's or not ready (asked again after reserving). */
export async function requireReadyVolumes(
  platform: Pick<PlatformServices, "storage">,
  accountId: string,
  ids: string[],
): Promise<Map<string, VolumeRecord>> {
  if (ids.length === 0) return new Map();
  const volumes = new Map(
    (await platform.storage.volumes.findByIds(accountId, ids)).map((volume) => [volume.id, volume]),
  );
  const missing = ids.find((id) => volumes.get(id)?.status !== "ready");
  if (missing !== undefined) throw new ServiceError("not_found", `Volume ${missing} not found or not ready`);
  return volumes;
}
