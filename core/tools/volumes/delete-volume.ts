import { z } from "zod";
import { deleteVolume as removeVolume } from "../../sandboxes/volumes/volumes.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { runtimeCall } from "../sandboxes/sessions.ts";
import { volumeIdParameter, volumesEnabled } from "./schemas.ts";

export const deleteVolume = defineTool({
  name: "delete_sandbox_volume",
  group: "volumes",
  title: "Delete a volume",
  description: "Delete a volume and its files; refused (volume_in_use) while an active sandbox mounts it.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ volume_id: volumeIdParameter }),
  output: z.null(),
  auth: "api_key",
  bucket: "volume_ops",
  http: { method: "DELETE", path: "/v1/volumes/:volume_id", status: 204 },
  mcp: { done: { status: "deleted", idField: "volume_id" } },
  enabled: volumesEnabled,
  uses: ["logger", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    await runtimeCall(context, "volume delete", () =>
      removeVolume(context.platform, accountId, input.volume_id, context.now),
    );
    return null;
  },
});
