import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { sandboxSessionOut, sessionIdParameter, sessionNotFound, toSessionOut } from "./sessions.ts";

export const getSandbox = defineTool({
  name: "get_sandbox",
  group: "sandboxes",
  title: "Get a sandbox",
  description: "Get one sandbox, destroyed ones too: status, expires_at and why it ended.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: sandboxSessionOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/sandboxes/:session_id", status: 200 },
  mcp: {},
  uses: ["storage"],
  async handler(context, input) {
    const session = await context.platform.storage.sandboxSessions.get(
      requireAccount(context),
      input.session_id,
    );
    if (!session) throw sessionNotFound();
    return toSessionOut(session, context.now);
  },
});
