import { z } from "zod";
import { maxContentCharacters } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { documentPathField, lspEnabled, lspIdParameter, lspRoute, requireLanguageServer } from "./schemas.ts";

export const lspOpen = defineTool({
  name: "lsp_open",
  group: "lsp",
  title: "Open a document in a language server",
  description:
    "Send a document's whole content to a language server (the first time opens it, later calls replace it). The file on disk is not changed. Call it again after each edit, before lsp_completion.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    lsp_id: lspIdParameter,
    path: documentPathField,
    content: z.string().max(maxContentCharacters).describe("The document's whole content"),
  }),
  output: z.object({ status: z.literal("opened") }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: lspRoute(":lsp_id/open"),
  mcp: {},
  enabled: lspEnabled,
  async handler(context, input) {
    const { client, path } = await requireLanguageServer(context, input);
    await runtimeCall(context, "language server open", () => client.open(path as string, input.content));
    return { status: "opened" as const };
  },
});
