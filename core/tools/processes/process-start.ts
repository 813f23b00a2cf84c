import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { requireAllowedCommand } from "../sandboxes/allowed-command.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { storableString } from "../text.ts";
import { processRoute, processStateOut, toProcessOut } from "./schemas.ts";

export const processStart = defineTool({
  name: "process_start",
  group: "processes",
  title: "Start a background process",
  description:
    "Start a shell command without waiting (a dev server, a long test run); returns its process_id for process_output, process_input and process_stop.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    command: storableString().min(1).max(1_048_576).describe('e.g. "python3 -m http.server 8000"'),
    description: z.string().max(500).optional().describe("What it is for"),
    max_runtime_seconds: z
      .number()
      .int()
      .min(1)
      .max(604_800)
      .nullable()
      .optional()
      .describe("Stop it after this long (default: when the sandbox ends)"),
  }),
  output: processStateOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "", 201),
  mcp: {},
  uses: ["backgroundProcesses", "patternWork", "plugins", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    await requireAllowedCommand(context, input.command);
    const { backgroundProcesses, sandboxRuntime } = context.platform;
    const requested = input.max_runtime_seconds ?? null;
    const deadline =
      requested === null
        ? session.expiresAt
        : new Date(Math.min(session.expiresAt.getTime(), context.now.getTime() + requested * 1000));
    const state = await runtimeCall(context, "process start", () =>
      backgroundProcesses.start(sandboxRuntime, session.id, {
        command: input.command,
        description: input.description ?? null,
        deadlineAt: deadline,
        now: context.now,
      }),
    );
    await context.platform.plugins.recordActivity(session.id, {
      kind: "process",
      subject: input.command,
      operation: "start",
      at: context.now,
      keyId: context.credentialId ?? null,
      detail: state.processId,
    });
    return toProcessOut(state);
  },
});
