import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processRoute, processStateOut, toProcessOut } from "./schemas.ts";

export const processList = defineTool({
  name: "process_list",
  group: "processes",
  title: "List background processes",
  description: "List a sandbox's processes, running and recently ended.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.object({ processes: z.array(processStateOut) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("GET", ""),
  mcp: {},
  uses: ["backgroundProcesses", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    return { processes: context.platform.backgroundProcesses.list(sessionId).map(toProcessOut) };
  },
});
