import { z } from "zod";
import { notFound } from "../../errors.ts";
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
  uses: ["previews", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    // Another account's sandbox, or an unknown one, is 404 as everywhere; an ended one's links
    // are gone already, so revoking them again is done (idempotent).
    if (!(await context.platform.storage.sandboxSessions.get(accountId, input.session_id)))
      throw notFound("Sandbox session not found");
    await context.platform.previews.revoke(accountId, input.session_id, input.port, input.token_id);
    return { revoked: true };
  },
});
