import { z } from "zod";
import {
  snapshotIdParameter,
  snapshotNotFound,
  snapshotOut,
  toSnapshotOut,
} from "../../sandboxes/snapshots/snapshots.ts";
import { defineTool, requireAccount } from "../../tool.ts";

export const getSnapshot = defineTool({
  name: "get_snapshot",
  group: "sandboxes",
  title: "Get a snapshot",
  description: "Get one snapshot: its sandbox, size in bytes and status.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ snapshot_id: snapshotIdParameter }),
  output: snapshotOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/snapshots/:snapshot_id", status: 200 },
  uses: ["storage"],
  async handler(context, input) {
    const snapshot = await context.platform.storage.snapshots.get(requireAccount(context), input.snapshot_id);
    if (!snapshot) throw snapshotNotFound();
    return toSnapshotOut(snapshot);
  },
});
