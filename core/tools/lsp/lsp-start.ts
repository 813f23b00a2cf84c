import { z } from "zod";
import { supportedLanguages } from "../../sandboxes/lsp/languages.ts";
import { defineTool } from "../../tool.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { lspEnabled, lspRoute } from "./schemas.ts";

export const lspStart = defineTool({
  name: "lsp_start",
  group: "lsp",
  title: "Start a language server",
  description: `Start a language server (at most 4 per sandbox); returns its lsp_id for lsp_open, lsp_completion and lsp_stop.`,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    language: z.string().min(1).max(32).describe(supportedLanguages.join(", ")),
  }),
  output: z.object({ lsp_id: z.string() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: lspRoute("start"),
  mcp: {},
  enabled: lspEnabled,
  uses: ["languageServers", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const { languageServers, sandboxRuntime } = context.platform;
    const lspId = await runtimeCall(context, "language server start", () =>
      languageServers.start(sandboxRuntime, session.id, input.language),
    );
    return { lsp_id: lspId };
  },
});
