import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter, sessionNotFound } from "./sessions.ts";

export const destroySandbox = defineTool({
  name: "destroy_sandbox",
  group: "sandboxes",
  title: "Destroy a sandbox",
  description: "Destroy a sandbox when done: its processes and files are gone.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.null(),
  auth: "api_key",
  bucket: "sandbox_lifecycle",
  http: { method: "DELETE", path: "/v1/sandboxes/:session_id", status: 204 },
  mcp: { done: { status: "destroyed", idField: "session_id" } },
  uses: ["sandboxRuntime", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const { storage, sandboxRuntime } = context.platform;
    // Billing ends now, even if the runtime needs a moment to clean up; one it refuses is
    // retried by the reaper (core/sandboxes/sessions/lifecycle.ts).
    if (!(await storage.sandboxSessions.end(session.id, "destroyed", context.now))) throw sessionNotFound();
    await runtimeCall(context, "destroy", () => sandboxRuntime.destroy(session.id));
    context.logger.info({ sessionId: session.id }, "sandbox destroyed");
    return null;
  },
});
