import { z } from "zod";
import { notFound } from "../../errors.ts";
import { activityOut, toActivityOut } from "../../sandboxes/activity/activity-out.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";

export const sandboxLog = defineTool({
  name: "sandbox_log",
  group: "sandboxes",
  title: "Sandbox activity",
  description: "A sandbox's activity, newest first: execs, files, processes, HTTP calls.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    limit: z.number().int().min(1).max(200).default(50).describe("Entries per page"),
    offset: z.number().int().min(0).default(0).describe("Entries to skip, newest first"),
  }),
  output: z.object({
    session_id: z.string(),
    total: z.number().int(),
    entries: z.array(activityOut),
  }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/sandboxes/:session_id/log", status: 200 },
  // An agent reads the newest 50 entries; paging is REST's.
  mcp: { omit: ["limit", "offset"] },
  uses: ["storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage } = context.platform;
    // Ended sandboxes keep their log while their row lives; another account's is 404.
    const session = await storage.sandboxSessions.get(accountId, input.session_id);
    if (!session) throw notFound("Sandbox session not found");
    const page = await storage.sandboxActivity.page(session.id, input.offset, input.limit);
    return {
      session_id: session.id,
      total: page.total,
      entries: page.entries.map((entry) => toActivityOut(entry, accountId)),
    };
  },
});
