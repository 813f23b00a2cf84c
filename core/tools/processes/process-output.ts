import { z } from "zod";
import { budgetProcessOutput, mcpStreamBudgetBytes } from "../../sandboxes/output-budget.ts";
import { defineTool } from "../../tool.ts";
import { keepField } from "../sandboxes/output-budget-fields.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processIdParameter, processRoute, processStatuses } from "./schemas.ts";

export const processOutput = defineTool({
  name: "process_output",
  group: "processes",
  title: "Read a process's output",
  description: `Read a background process's output from since_offset (0, or the last next_offset), waiting up to wait_seconds for more. keep "head" reads max_bytes on; "tail" and "both" read to the newest, omitted_range naming what was cut.`,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    process_id: processIdParameter,
    since_offset: z.number().int().min(0).default(0).describe("0, or the previous next_offset"),
    max_bytes: z.number().int().min(1).max(1_048_576).default(65_536).describe("Both streams together"),
    keep: keepField("head"),
    wait_seconds: z
      .number()
      .int()
      .min(0)
      .max(60)
      .default(0)
      .describe("Wait this long for new output (or the end)"),
  }),
  output: z.object({
    stdout: z.string(),
    stderr: z.string(),
    offset: z.number().int(),
    next_offset: z.number().int(),
    truncated: z.boolean(),
    omitted_bytes: z.number().int(),
    omitted_range: z.array(z.number().int()).length(2).nullable(),
    status: z.enum(processStatuses),
    exit_code: z.number().int().nullable(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("GET", "/:process_id/output"),
  // MCP: the newest output's head and tail within an agent's context, unless the client asks otherwise.
  mcp: {
    defaults: { max_bytes: mcpStreamBudgetBytes, keep: "both" },
    saidByTool: ["keep", "since_offset", "wait_seconds"],
  },
  uses: ["backgroundProcesses", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const page = await context.platform.backgroundProcesses.output(sessionId, input.process_id, {
      since: input.since_offset,
      // "tail" and "both" read everything kept past since_offset (bounded by the log) and cut it here.
      maxBytes: input.keep === "head" ? input.max_bytes : Number.MAX_SAFE_INTEGER,
      waitMs: input.wait_seconds * 1000,
      signal: context.signal,
    });
    // A "head" page is max_bytes already (or one character past it, so a page always moves on).
    const budget = input.keep === "head" ? Number.POSITIVE_INFINITY : input.max_bytes;
    const text = budgetProcessOutput(page, budget, input.keep);
    return {
      stdout: text.stdout,
      stderr: text.stderr,
      offset: page.offset,
      next_offset: page.nextOffset,
      truncated: page.truncated,
      omitted_bytes: text.omittedBytes,
      omitted_range: text.omittedRange,
      status: page.state.status,
      exit_code: page.state.exitCode,
    };
  },
});
