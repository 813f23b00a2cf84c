import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import {
  activeSessionId,
  processIdParameter,
  processRoute,
  processStateOut,
  toProcessOut,
} from "./schemas.ts";

export const processStop = defineTool({
  name: "process_stop",
  group: "processes",
  title: "Stop a background process",
  description:
    "Stop a background process (SIGTERM to it and its children, then SIGKILL); answers its final state.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter, process_id: processIdParameter }),
  output: processStateOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "/:process_id/stop"),
  mcp: {},
  uses: ["backgroundProcesses", "plugins", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const state = await runtimeCall(context, "process stop", () =>
      context.platform.backgroundProcesses.stop(sessionId, input.process_id),
    );
    await context.platform.plugins.recordActivity(sessionId, {
      kind: "process",
      subject: state.command,
      operation: "stop",
      exitCode: state.exitCode,
      at: context.now,
      keyId: context.credentialId ?? null,
      bytes: state.outputBytes,
      detail: state.processId,
    });
    return toProcessOut(state);
  },
});
