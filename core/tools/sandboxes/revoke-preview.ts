import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { previewPort } from "./previews-schemas.ts";
import { sessionIdParameter } from "./sessions.ts";

export const revokePreview = defineTool({
  name: "revoke_preview",
  group: "sandboxes",
  title: "Revoke a preview",
  description: "End a preview URL now.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    port: previewPort,
    token_id: z.string().min(1).max(100).describe("From create_preview"),
  }),
  output: z.object({ revoked: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/preview/:port/revoke", status: 200 },
  mcp: { saidByTool: ["port", "token_id"] },
  uses: ["previews"],
  async handler(context, input) {
    context.platform.previews.revoke(requireAccount(context), input.session_id, input.port, input.token_id);
    return { revoked: true };
  },
});
