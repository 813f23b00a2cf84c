import { z } from "zod";
import { maxContentCharacters } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { documentPathField, lspEnabled, lspIdParameter, lspRoute, requireLanguageServer } from "./schemas.ts";

export const lspOpen = defineTool({
  name: "lsp_open",
  group: "lsp",
  title: "Open a document",
  description:
    "Send a document's whole content to a language server (the file on disk is unchanged); again after each edit, before lsp_completion.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    lsp_id: lspIdParameter,
    path: documentPathField,
    content: z.string().max(maxContentCharacters).describe("Its whole content"),
  }),
  output: z.object({ status: z.literal("opened") }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: lspRoute(":lsp_id/open"),
  // `path`: the server's instructions say where relative paths are.
  mcp: { saidByTool: ["content", "path"] },
  enabled: lspEnabled,
  uses: ["languageServers", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const { client, path } = await requireLanguageServer(context, input);
    await runtimeCall(context, "language server open", () => client.open(path as string, input.content));
    return { status: "opened" as const };
  },
});
