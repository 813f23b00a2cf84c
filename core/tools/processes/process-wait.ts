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

export const processWait = defineTool({
  name: "process_wait",
  group: "processes",
  title: "Wait for a process",
  description:
    'Wait up to timeout_seconds for a background process to end; answers its state (status "running": not ended yet).',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    process_id: processIdParameter,
    timeout_seconds: z.number().int().min(1).max(100).default(30).describe("Most seconds to wait"),
  }),
  output: processStateOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "/:process_id/wait"),
  mcp: { saidByTool: ["timeout_seconds"] },
  uses: ["backgroundProcesses", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const state = await context.platform.backgroundProcesses.wait(
      sessionId,
      input.process_id,
      input.timeout_seconds * 1000,
      context.signal,
    );
    return toProcessOut(state);
  },
});
