import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { createOutputReporter } from "../../sandboxes/exec/streamed-output.ts";
import {
  budgetExecStream,
  budgetKeptExecStream,
  mcpStreamBudgetBytes,
} from "../../sandboxes/output-budget.ts";
import { defineTool } from "../../tool.ts";
import { storableString } from "../text.ts";
import { requireAllowedCommand } from "./allowed-command.ts";
import { keepField, maxOutputBytesField } from "./output-budget-fields.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "./sessions.ts";

/** A JSON exec waits at most this long; a streamed one (the caller sees output as it comes) longer. */
export const maxTimeoutSeconds = 100;
export const maxStreamedTimeoutSeconds = 3600;

const timeoutTooLong = () =>
  new ServiceError("validation_error", "Invalid request", {
    details: [
      {
        type: "too_big",
        loc: ["timeout"],
        msg: `Must be at most ${maxTimeoutSeconds} unless the exec is streamed (Accept: text/event-stream, or an MCP progressToken), which allows ${maxStreamedTimeoutSeconds}; start a background process for longer work`,
      },
    ],
  });

export const exec = defineTool({
  name: "exec",
  group: "sandboxes",
  title: "Run a command in a sandbox",
  description:
    "Run a shell command in a sandbox (cwd /workspace, no network) and wait: exit_code, stdout, stderr, timed_out. Output past max_output_bytes is cut, a marker saying how much.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    command: storableString().min(1).max(1_048_576).describe('e.g. "pip install -r requirements.txt"'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(maxStreamedTimeoutSeconds)
      .nullable()
      .default(30)
      .transform((value) => value ?? 30)
      .describe("At most 100, or 3600 with a progressToken"),
    description: z.string().max(500).optional().describe("What the command is for, in a few words"),
    max_output_bytes: maxOutputBytesField(1_048_576, "each of stdout and stderr"),
    keep: keepField("both", "both: half each"),
  }),
  output: z.object({
    exit_code: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
    timed_out: z.boolean(),
    truncated: z.boolean(),
    stdout_omitted_bytes: z.number().int(),
    stderr_omitted_bytes: z.number().int(),
    duration_ms: z.number().int(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/exec", status: 200 },
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  // MCP: a budget that fits an agent's context unless the client asks for more.
  mcp: {
    omit: ["description"],
    defaults: { max_output_bytes: mcpStreamBudgetBytes },
    saidByTool: ["max_output_bytes"],
  },
  streamsOutput: true,
  uses: ["patternWork", "plugins", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const { reportProgress } = context;
    if (!reportProgress && input.timeout > maxTimeoutSeconds) throw timeoutTooLong();
    const session = await requireActiveSession(context, input.session_id);
    await requireAllowedCommand(context, input.command);
    // A command never outlives its sandbox: the timeout is cut to the session's expiry.
    const remainingSeconds = Math.ceil((session.expiresAt.getTime() - context.now.getTime()) / 1000);
    const output = reportProgress ? createOutputReporter(reportProgress) : undefined;
    const budget = input.max_output_bytes;
    reportProgress?.({ kind: "started" });
    const result = await runtimeCall(context, "exec", () =>
      context.platform.sandboxRuntime.exec(session.id, {
        command: input.command,
        timeoutSeconds: Math.max(1, Math.min(input.timeout, remainingSeconds)),
        signal: context.signal,
        onOutput: output?.onOutput,
        // The runtime keeps what the budget's cut needs of the whole output, not its first MiB.
        budget: budget === undefined ? undefined : { maxBytes: budget, keep: input.keep },
      }),
    );
    output?.flush();
    await context.platform.plugins.recordActivity(session.id, {
      kind: "command",
      command: input.command,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      at: context.now,
      keyId: context.credentialId ?? null,
      // The output's size, as the runtime counted it; never the output.
      bytes: result.output
        ? result.output.stdout.totalBytes + result.output.stderr.totalBytes
        : byteLength(result.stdout) + byteLength(result.stderr),
      detail: `${result.durationMs} ms`,
    });
    const budgeted = (stream: "stdout" | "stderr") =>
      result.output && budget !== undefined
        ? budgetKeptExecStream(result.output[stream], stream, budget, input.keep)
        : budgetExecStream(result[stream], stream, budget, input.keep);
    const stdout = budgeted("stdout");
    const stderr = budgeted("stderr");
    return {
      exit_code: result.exitCode,
      stdout: stdout.text,
      stderr: stderr.text,
      timed_out: result.timedOut,
      truncated: result.truncated || stdout.omittedBytes + stderr.omittedBytes > 0,
      stdout_omitted_bytes: stdout.omittedBytes,
      stderr_omitted_bytes: stderr.omittedBytes,
      duration_ms: Math.round(result.durationMs),
    };
  },
});

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;
