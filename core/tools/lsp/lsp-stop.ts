import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { lspEnabled, lspIdParameter, lspRoute } from "./schemas.ts";

export const lspStop = defineTool({
  name: "lsp_stop",
  group: "lsp",
  title: "Stop a language server",
  description: "Stop a language server, freeing its slot.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({ session_id: sessionIdParameter, lsp_id: lspIdParameter }),
  output: z.object({ status: z.literal("stopped") }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: lspRoute(":lsp_id/stop"),
  mcp: {},
  enabled: lspEnabled,
  uses: ["languageServers", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const { languageServers } = context.platform;
    await runtimeCall(context, "language server stop", () => languageServers.stop(session.id, input.lsp_id));
    return { status: "stopped" as const };
  },
});
