import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { storableString } from "../text.ts";
import { requireAllowedCommand } from "./allowed-command.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "./sessions.ts";

export const exec = defineTool({
  name: "exec",
  group: "sandboxes",
  title: "Run a command in a sandbox",
  description:
    "Run a shell command in a sandbox (cwd /workspace, no network) and wait for it. Returns exit_code, stdout (≤1 MiB), stderr (≤256 KiB) and timed_out. Use the file tools to read and edit files.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    command: storableString()
      .min(1)
      .max(1_048_576)
      .describe('Shell command line, e.g. "pip install -r requirements.txt"'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(100)
      .nullable()
      .default(30)
      .transform((value) => value ?? 30)
      .describe("Seconds before the command is killed; null means 30"),
    description: z.string().max(500).optional().describe("What the command is for, in a few words"),
  }),
  output: z.object({
    exit_code: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
    timed_out: z.boolean(),
    truncated: z.boolean(),
    duration_ms: z.number().int(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/exec", status: 200 },
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["description"] },
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    await requireAllowedCommand(context, input.command);
    const result = await runtimeCall(context, "exec", () =>
      context.platform.sandboxRuntime.exec(session.id, {
        command: input.command,
        timeoutSeconds: input.timeout,
        signal: context.signal,
      }),
    );
    await context.platform.plugins.recordActivity(session.id, {
      kind: "command",
      command: input.command,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      at: context.now,
    });
    return {
      exit_code: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      timed_out: result.timedOut,
      truncated: result.truncated,
      duration_ms: Math.round(result.durationMs),
    };
  },
});
