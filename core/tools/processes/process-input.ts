import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { activeSessionId, processIdParameter, processRoute } from "./schemas.ts";

export const processInput = defineTool({
  name: "process_input",
  group: "processes",
  title: "Write to stdin",
  description:
    "Write text to a background process's stdin (add \\n for a line; eof: true closes it). Until it is read, another is process_stdin_busy (retryable).",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    process_id: processIdParameter,
    data: z.string().max(1_048_576).default("").describe("Text for stdin"),
    eof: z.boolean().default(false).describe("Then close stdin"),
  }),
  output: z.object({ bytes_written: z.number().int(), stdin_open: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: processRoute("POST", "/:process_id/input"),
  mcp: { saidByTool: ["data", "eof"] },
  uses: ["backgroundProcesses", "storage"],
  async handler(context, input) {
    const sessionId = await activeSessionId(context, input.session_id);
    const bytes = new TextEncoder().encode(input.data);
    await runtimeCall(context, "process input", () =>
      context.platform.backgroundProcesses.input(sessionId, input.process_id, bytes, input.eof),
    );
    return { bytes_written: bytes.length, stdin_open: !input.eof };
  },
});
