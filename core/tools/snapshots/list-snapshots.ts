import { z } from "zod";
import { notFound } from "../../errors.ts";
import { snapshotOut, toSnapshotOut } from "../../sandboxes/snapshots/snapshots.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";

export const listSnapshots = defineTool({
  name: "list_snapshots",
  group: "sandboxes",
  title: "List snapshots",
  description: "A sandbox's snapshots, newest first.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.array(snapshotOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/sandboxes/:session_id/snapshots", status: 200 },
  // Not an MCP tool: an agent has the ids create_snapshot answered; tools/list stays small.
  uses: ["storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage } = context.platform;
    // Another account's sandbox, or an unknown one, is 404 as everywhere.
    if (!(await storage.sandboxSessions.get(accountId, input.session_id)))
      throw notFound("Sandbox session not found");
    const snapshots = await storage.snapshots.list(accountId, input.session_id);
    return snapshots.map(toSnapshotOut);
  },
});
