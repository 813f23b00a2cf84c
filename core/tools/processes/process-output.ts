import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processIdParameter, processRoute, processStatuses } from "./schemas.ts";

const decoder = new TextDecoder();

export const processOutput = defineTool({
  name: "process_output",
  group: "processes",
  title: "Read a background process's output",
  description:
    "Read a background process's stdout and stderr from since_offset (0 at first, then the next_offset of the previous answer): offsets count the bytes of both streams together, so nothing is lost or repeated. With wait_seconds, waits that long for new output or the process's end. truncated means bytes before offset were dropped (the server keeps the newest only).",
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
    status: z.enum(processStatuses),
    exit_code: z.number().int().nullable(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("GET", "/:process_id/output"),
  mcp: {},
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const page = await context.platform.backgroundProcesses.output(sessionId, input.process_id, {
      since: input.since_offset,
      maxBytes: input.max_bytes,
      waitMs: input.wait_seconds * 1000,
      signal: context.signal,
    });
    const text = (stream: "stdout" | "stderr") =>
      page.chunks
        .filter((chunk) => chunk.stream === stream)
        .map((chunk) => decoder.decode(chunk.bytes))
        .join("");
    return {
      stdout: text("stdout"),
      stderr: text("stderr"),
      offset: page.offset,
      next_offset: page.nextOffset,
      truncated: page.truncated,
      status: page.state.status,
      exit_code: page.state.exitCode,
    };
  },
});
