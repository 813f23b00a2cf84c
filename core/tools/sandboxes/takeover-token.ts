import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { requireActiveSession, sessionIdParameter } from "./sessions.ts";

export const takeoverToken = defineTool({
  name: "takeover_token",
  group: "sandboxes",
  title: "Mint a takeover-terminal token",
  description:
    "A single-use token, valid 60 seconds, that opens the sandbox's terminal (GET /v1/sandboxes/{id}/takeover?token=…) where a WebSocket cannot carry an Authorization header (browsers). Refused while the account has a command allowlist: a terminal runs anything.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    read_only: z
      .boolean()
      .default(false)
      .describe("An observer: sees the terminal, its keystrokes are dropped"),
  }),
  output: z.object({ token: z.string(), expires_at: z.string(), read_only: z.boolean() }),
  auth: "api_key",
  role: "admin",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/takeover-token", status: 201 },
  uses: ["storage", "terminals"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    const rules = await context.platform.storage.allowlists.get(requireAccount(context));
    if (rules.length > 0 && !input.read_only) {
      throw new ServiceError(
        "command_not_allowed",
        "The account has a command allowlist, and a terminal cannot be held to it: clear the allowlist, or open the terminal read-only",
      );
    }
    const minted = context.platform.terminals.mintToken(
      requireAccount(context),
      session.id,
      input.read_only,
      context.credentialId ?? null,
    );
    return { token: minted.token, expires_at: minted.expiresAt.toISOString(), read_only: input.read_only };
  },
});
