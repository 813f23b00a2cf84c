import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processIdParameter, processRoute } from "./schemas.ts";

export const processInput = defineTool({
  name: "process_input",
  group: "processes",
  title: "Write to a background process's stdin",
  description:
    "Send text to a background process's standard input (add \\n for a line); eof: true closes its stdin afterwards (many programs then finish). One input at a time: until the process has read the last one, another is refused (409 process_stdin_busy, retryable).",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    process_id: processIdParameter,
    data: z.string().max(1_048_576).default("").describe("Text for the command's stdin, as UTF-8"),
    eof: z.boolean().default(false).describe("Close stdin after writing data"),
  }),
  output: z.object({ bytes_written: z.number().int(), stdin_open: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "/:process_id/input"),
  mcp: {},
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const bytes = new TextEncoder().encode(input.data);
    await runtimeCall(context, "process input", () =>
      context.platform.backgroundProcesses.input(sessionId, input.process_id, bytes, input.eof),
    );
    return { bytes_written: bytes.length, stdin_open: !input.eof };
  },
});
