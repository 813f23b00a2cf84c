import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { requireAllowedCommand } from "../sandboxes/allowed-command.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { storableString } from "../text.ts";
import { processRoute, processStateOut, toProcessOut } from "./schemas.ts";

export const processStart = defineTool({
  name: "process_start",
  group: "processes",
  title: "Start a background process in a sandbox",
  description:
    "Start a shell command in a sandbox without waiting for it (a dev server, a watcher, a long test run); returns its process_id at once. Read its output with process_output (from next_offset on), send stdin with process_input, end it with process_stop. It runs until it exits, is stopped, reaches max_runtime_seconds or the sandbox ends.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    command: storableString()
      .min(1)
      .max(1_048_576)
      .describe('Shell command line, e.g. "python3 -m http.server 8000"'),
    description: z.string().max(500).optional().describe("What the command is for, in a few words"),
    max_runtime_seconds: z
      .number()
      .int()
      .min(1)
      .max(604_800)
      .nullable()
      .optional()
      .describe("Seconds after which it is stopped; absent or null: until the sandbox ends (never later)"),
  }),
  output: processStateOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "", 201),
  mcp: {},
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
    return toProcessOut(state);
  },
});
