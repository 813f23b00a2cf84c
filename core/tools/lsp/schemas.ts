/**
 * Language servers in sandboxes (docs/api.md#lsp): shared pieces of the four operations. Each
 * resolves the session (owned and active); the servers themselves are held by
 * `platform.languageServers`, keyed by session, so another session's lsp id is 404 like an
 * unknown one.
 */
import { z } from "zod";
import type { Config } from "../../config.ts";
import { resolveSandboxPath } from "../../sandboxes/files/paths.ts";
import type { LanguageClient } from "../../sandboxes/lsp/language-client.ts";
import type { ToolContext } from "../../tool.ts";
import { requireActiveSession } from "../sandboxes/sessions.ts";

export const lspEnabled = (config: Config) => config.SVC_LSP_ENABLED;

export const lspIdParameter = z.string().min(1).max(64).describe("Language server id, from lsp_start");

export const documentPathField = z.string().min(1).max(4096).describe("Under /workspace if relative");

/** The REST binding of an LSP operation: POST /v1/sandboxes/:session_id/lsp/<suffix>. */
export const lspRoute = (suffix: string) => ({
  method: "POST" as const,
  path: `/v1/sandboxes/:session_id/lsp/${suffix}`,
  status: 200,
});

/** The session's language server and the canonical sandbox path of `path` (when given). */
export async function requireLanguageServer(
  context: ToolContext<"storage" | "languageServers" | "sandboxRuntime">,
  input: { session_id: string; lsp_id: string; path?: string },
): Promise<{ sessionId: string; client: LanguageClient; path: string | null }> {
  const session = await requireActiveSession(context, input.session_id);
  const client = context.platform.languageServers.get(session.id, input.lsp_id);
  const runtime = context.platform.sandboxRuntime;
  if (input.path !== undefined) await runtime.loadSandbox?.(session.id);
  const path =
    input.path === undefined ? null : resolveSandboxPath(input.path, runtime.files(session.id).roots());
  return { sessionId: session.id, client, path };
}
