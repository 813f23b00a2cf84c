import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { toVolumeOut, volumeOut, volumesEnabled } from "./schemas.ts";

export const listVolumes = defineTool({
  name: "list_sandbox_volumes",
  group: "volumes",
  title: "List volumes",
  description: "List the account's volumes, newest first, with status and size.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.array(volumeOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/volumes", status: 200 },
  mcp: {},
  enabled: volumesEnabled,
  uses: ["sandboxRuntime", "storage"],
  async handler(context) {
    const { storage, sandboxRuntime } = context.platform;
    const volumes = await storage.volumes.list(requireAccount(context));
    return Promise.all(
      volumes.map(async (volume) =>
        toVolumeOut(volume, (await sandboxRuntime.volumeUsedBytes?.(volume.id)) ?? null),
      ),
    );
  },
});
