/**
 * Volumes (docs/api.md#volumes): persistent storage an account creates once and mounts into
 * sandboxes at create time; its data outlives sessions until the volume is deleted.
 */
import { z } from "zod";
import type { Config } from "../../config.ts";
import type { VolumeRecord } from "../../ports/storage.ts";
import { resourceId } from "../resource-id.ts";

export const volumeStatuses = ["queued", "creating", "ready", "failed", "deleting"] as const;

export const volumeIdParameter = resourceId.describe("Volume id, from create_sandbox_volume");

export const volumeOut = z.object({
  id: z.string(),
  label: z.string().nullable(),
  size_gb: z.number(),
  status: z.enum(volumeStatuses),
  pvc_name: z.string().nullable(),
  /** Null when the runtime cannot measure it. */
  used_bytes: z.number().int().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
});

export const volumesEnabled = (config: Config) => config.SVC_VOLUMES_ENABLED;

export function toVolumeOut(volume: VolumeRecord, usedBytes: number | null): z.input<typeof volumeOut> {
  return {
    id: volume.id,
    label: volume.label,
    size_gb: volume.sizeGb,
    status: volume.status,
    pvc_name: volume.pvcName,
    used_bytes: usedBytes,
    failure_reason: volume.failureReason,
    created_at: volume.createdAt.toISOString(),
  };
}
