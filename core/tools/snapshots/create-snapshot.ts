import { z } from "zod";
import { snapshotOut, takeSnapshot, toSnapshotOut } from "../../sandboxes/snapshots/snapshots.ts";
import { defineTool } from "../../tool.ts";
import { requireActiveSession, sessionIdParameter } from "../sandboxes/sessions.ts";
import { storableString } from "../text.ts";

export const createSnapshot = defineTool({
  name: "create_snapshot",
  group: "sandboxes",
  title: "Snapshot a sandbox",
  description: "Snapshot a sandbox's files, for restore_snapshot.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    label: storableString().max(200).nullable().default(null).describe("Name shown in listings"),
  }),
  output: snapshotOut,
  auth: "api_key",
  bucket: "sandbox_lifecycle",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/snapshots", status: 201 },
  mcp: { saidByTool: ["label"] },
  uses: ["config", "plugins", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const snapshot = await takeSnapshot(context, session, input.label);
    context.logger.info(
      { sessionId: session.id, snapshotId: snapshot.id, bytes: snapshot.sizeBytes },
      "snapshot taken",
    );
    await context.platform.plugins.recordActivity(session.id, {
      kind: "snapshot",
      subject: snapshot.label ?? snapshot.id,
      operation: "create",
      at: context.now,
      keyId: context.credentialId ?? null,
      bytes: snapshot.sizeBytes,
      detail: snapshot.id,
    });
    return toSnapshotOut(snapshot);
  },
});
