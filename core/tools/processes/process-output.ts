import { z } from "zod";
import { budgetProcessOutput, mcpStreamBudgetBytes } from "../../sandboxes/output-budget.ts";
import { defineTool } from "../../tool.ts";
import { keepField } from "../sandboxes/output-budget-fields.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processIdParameter, processRoute, processStatuses } from "./schemas.ts";

export const processOutput = defineTool({
  name: "process_output",
  group: "processes",
  title: "Read a background process's output",
  description: `Read a background process's stdout and stderr from since_offset (0 at first, then the next_offset of the previous answer): offsets count the bytes of both streams together, so nothing is lost or repeated. With wait_seconds, waits that long for new output or the process's end. truncated means bytes before offset were dropped (the server keeps the newest only). keep "head" (REST's default) reads the first max_bytes and next_offset is where they end; keep "tail" or "both" (the MCP default, with max_bytes 16 KiB) reads up to the newest output and cuts the rest, with a marker and omitted_range saying which offsets to read to get it.`,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    process_id: processIdParameter,
    since_offset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("Where to start: 0, or the next_offset of the previous read"),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(1_048_576)
      .default(65_536)
      .describe("At most this many bytes of output (both streams) in the answer"),
    keep: keepField(
      "head",
      '"head" reads on from since_offset (next_offset ends the page), "tail" and "both" read to the newest output and name the offsets cut',
    ),
    wait_seconds: z
      .number()
      .int()
      .min(0)
      .max(60)
      .default(0)
      .describe("When there is no output past since_offset yet, wait this long for some (or the end)"),
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
  mcp: { defaults: { max_bytes: mcpStreamBudgetBytes, keep: "both" } },
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
