import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { requireActiveSession, sessionIdParameter } from "./sessions.ts";

const decoder = new TextDecoder();

export const takeoverRecording = defineTool({
  name: "takeover_recording",
  group: "sandboxes",
  title: "Read the takeover terminal's recording",
  description:
    "What was typed into and shown by the sandbox's takeover terminal, in order (the last 1 MiB; `dropped` when older events were cut).",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.object({
    events: z.array(
      z.object({
        at: z.string(),
        stream: z.enum(["input", "output"]),
        data: z.string(),
        bytes: z.number().int(),
      }),
    ),
    dropped: z.boolean(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "GET", path: "/v1/sandboxes/:session_id/takeover/recording", status: 200 },
  uses: ["storage", "terminals"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const recording = context.platform.terminals.recording(session.id);
    return {
      events: recording.events.map((event) => ({
        at: event.at.toISOString(),
        stream: event.stream,
        data: decoder.decode(event.bytes),
        bytes: event.bytes.length,
      })),
      dropped: recording.dropped,
    };
  },
});
