import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { toVolumeOut, volumeIdParameter, volumeOut, volumesEnabled } from "./schemas.ts";

export const getVolume = defineTool({
  name: "get_sandbox_volume",
  group: "volumes",
  title: "Get a volume",
  description: "Get one volume: status (ready: mountable), size and bytes used.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ volume_id: volumeIdParameter }),
  output: volumeOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/volumes/:volume_id", status: 200 },
  mcp: {},
  enabled: volumesEnabled,
  uses: ["sandboxRuntime", "storage"],
  async handler(context, input) {
    const { storage, sandboxRuntime } = context.platform;
    const volume = await storage.volumes.get(requireAccount(context), input.volume_id);
    if (!volume) throw notFound("Volume not found");
    const usedBytes = (await sandboxRuntime.volumeUsedBytes?.(volume.id)) ?? null;
    return toVolumeOut(volume, usedBytes);
  },
});
