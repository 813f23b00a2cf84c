import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { sandboxSessionOut, toSessionOut } from "./sessions.ts";

export const listSandboxes = defineTool({
  name: "list_sandboxes",
  group: "sandboxes",
  title: "List sandboxes",
  description: "List the account's sandboxes, newest first, with status and expiry.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ active_only: z.boolean().default(false).describe("Only sandboxes still active") }),
  output: z.array(sandboxSessionOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/sandboxes", status: 200 },
  mcp: { saidByTool: ["active_only"] },
  uses: ["storage"],
  async handler(context, input) {
    const sessions = await context.platform.storage.sandboxSessions.list(
      requireAccount(context),
      input.active_only,
    );
    // Expired sessions the reaper has not ended yet are shown ended, so active_only leaves them out.
    return sessions
      .map((session) => toSessionOut(session, context.now))
      .filter((session) => !input.active_only || session.status === "active");
  },
});
