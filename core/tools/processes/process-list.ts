import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processRoute, processStateOut, toProcessOut } from "./schemas.ts";

export const processList = defineTool({
  name: "process_list",
  group: "processes",
  title: "List a sandbox's background processes",
  description:
    "List the background processes of a sandbox, running and recently ended, oldest first, with status, exit_code and output_bytes.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.object({ processes: z.array(processStateOut) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("GET", ""),
  mcp: {},
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    return { processes: context.platform.backgroundProcesses.list(sessionId).map(toProcessOut) };
  },
});
