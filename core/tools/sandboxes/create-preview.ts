import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { previewOut, previewPort, previewUrl } from "./previews-schemas.ts";
import { requireActiveSession, sessionIdParameter } from "./sessions.ts";

export const createPreview = defineTool({
  name: "create_preview",
  group: "sandboxes",
  title: "Preview a port",
  description: "URL reaching a sandbox port (HTTP, WebSocket) until expires_at.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    port: previewPort,
    ttl_seconds: z.number().int().min(30).max(86_400).default(900).describe("Lifetime"),
  }),
  output: previewOut,
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/preview/:port", status: 201 },
  mcp: { saidByTool: ["port", "ttl_seconds"] },
  uses: ["previews", "storage", "config"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    // A link never outlives its sandbox (and its lookup refuses an ended sandbox's, previews.ts).
    const ttl = Math.min(input.ttl_seconds, (session.expiresAt.getTime() - context.now.getTime()) / 1000);
    const { token, record } = await context.platform.previews.mint(
      requireAccount(context),
      session.id,
      input.port,
      Math.max(1, Math.floor(ttl)),
    );
    return {
      url: previewUrl(context.platform.config, record, token),
      expires_at: record.expiresAt.toISOString(),
      token_id: record.tokenId,
      port: record.port,
    };
  },
});
