import { z } from "zod";
import {
  restoreSnapshot as restore,
  snapshotIdParameter,
  snapshotNotFound,
} from "../../sandboxes/snapshots/snapshots.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { summariseUsage, usageSummary } from "../account/get-usage.ts";
import { sandboxSessionOut, toSessionOut } from "../sandboxes/sessions.ts";
import { storableString } from "../text.ts";

export const restoreSnapshot = defineTool({
  name: "restore_snapshot",
  group: "sandboxes",
  title: "Restore a snapshot",
  description: "New sandbox from a snapshot's files; answers as create_sandbox.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    snapshot_id: snapshotIdParameter,
    label: storableString().max(200).nullable().default(null).describe("Name shown in listings"),
  }),
  output: sandboxSessionOut.extend({ usage: usageSummary }),
  auth: "api_key",
  bucket: "sandbox_lifecycle",
  http: { method: "POST", path: "/v1/snapshots/:snapshot_id/restore", status: 201 },
  mcp: { omit: ["label"] },
  uses: ["config", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const snapshot = await context.platform.storage.snapshots.get(accountId, input.snapshot_id);
    if (!snapshot) throw snapshotNotFound();
    const session = await restore(context, snapshot, input.label);
    context.logger.info({ sessionId: session.id, snapshotId: snapshot.id }, "snapshot restored");
    const usage = await summariseUsage(context.platform, accountId, context.now);
    return { ...toSessionOut(session, context.now), usage };
  },
});
