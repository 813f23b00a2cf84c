import { z } from "zod";
import { provisionVolume } from "../../sandboxes/volumes/volumes.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { storableString } from "../text.ts";
import { volumesEnabled } from "./schemas.ts";

export const createVolume = defineTool({
  name: "create_sandbox_volume",
  group: "volumes",
  title: "Create a volume",
  description:
    "Create a persistent volume; once get_sandbox_volume says ready, mount it with create_sandbox's volume_mounts.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    label: storableString().max(200).nullable().default(null).describe("Name shown in listings"),
    size_gb: z.number().positive().max(1024).describe("Capacity in GiB"),
  }),
  output: z.object({
    id: z.string(),
    label: z.string().nullable(),
    status: z.literal("queued"),
    created_at: z.string(),
  }),
  auth: "api_key",
  bucket: "volume_ops",
  http: { method: "POST", path: "/v1/volumes", status: 202 },
  mcp: { defaults: { size_gb: 1 }, saidByTool: ["label"] },
  enabled: volumesEnabled,
  uses: ["config", "logger", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage, config } = context.platform;
    const volume = {
      id: crypto.randomUUID(),
      accountId,
      label: input.label,
      sizeGb: input.size_gb,
      status: "queued" as const,
      pvcName: null,
      failureReason: null,
      createdAt: context.now,
    };
    await storage.volumes.create(volume, config.SVC_MAX_VOLUMES_PER_ACCOUNT);
    // Provisioning is one runtime call (a PVC on Kubernetes, nothing locally), so it runs before
    // the answer: a volume is ready, or failed with its reason, by the time the client reads it.
    await provisionVolume(context.platform, volume);
    context.logger.info({ volumeId: volume.id, sizeGb: volume.sizeGb }, "volume created");
    return {
      id: volume.id,
      label: volume.label,
      status: "queued" as const,
      created_at: context.now.toISOString(),
    };
  },
});
