import { z } from "zod";
import {
  deleteSnapshot as removeSnapshot,
  snapshotIdParameter,
  snapshotNotFound,
} from "../../sandboxes/snapshots/snapshots.ts";
import { defineTool, requireAccount } from "../../tool.ts";

export const deleteSnapshot = defineTool({
  name: "delete_snapshot",
  group: "sandboxes",
  title: "Delete a snapshot",
  description: "Delete a snapshot and its data (needs an admin key).",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ snapshot_id: snapshotIdParameter }),
  output: z.null(),
  auth: "api_key",
  role: "admin",
  bucket: "sandbox_lifecycle",
  http: { method: "DELETE", path: "/v1/snapshots/:snapshot_id", status: 204 },
  uses: ["config", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const snapshot = await context.platform.storage.snapshots.get(requireAccount(context), input.snapshot_id);
    if (!snapshot) throw snapshotNotFound();
    await removeSnapshot(context, snapshot);
    context.logger.info({ snapshotId: snapshot.id }, "snapshot deleted");
    return null;
  },
});
