import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import {
  activeSessionId,
  processIdParameter,
  processRoute,
  processStateOut,
  toProcessOut,
} from "./schemas.ts";

export const processGet = defineTool({
  name: "process_get",
  group: "processes",
  title: "Get a background process",
  description: "One background process's state: status, exit_code, started_at, ended_at and output_bytes.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter, process_id: processIdParameter }),
  output: processStateOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("GET", "/:process_id"),
  uses: ["backgroundProcesses", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    return toProcessOut(context.platform.backgroundProcesses.get(sessionId, input.process_id));
  },
});
