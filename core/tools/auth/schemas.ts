/** Wire shapes shared by the auth and account operations (docs/api.md#auth, #api-keys, #account-and-usage). */
import { z } from "zod";
import type { ToolContext } from "../../tool.ts";

// `.invalid` (RFC 2606) receives no mail, and `cairn mcp serve --data-dir` keeps its local account
// there (platform/local-account.ts): nobody may sign up as it and later read what stdio writes.
export const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email().max(320))
  .refine((address) => !address.endsWith(".invalid"), "addresses under .invalid are reserved");

export const accountOut = z.object({ id: z.string(), email: z.string(), created_at: z.string() });

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
  expires_in: z.number().int(),
  account: accountOut,
});

/** The token response for a signed-up or logged-in account. */
export async function tokenResponseFor(
  context: ToolContext<"dashboardTokens">,
  account: { id: string; email: string; createdAt: Date },
): Promise<z.input<typeof tokenResponse>> {
  const { dashboardTokens } = context.platform;
  return {
    access_token: await dashboardTokens.issue({ accountId: account.id, email: account.email }, context.now),
    token_type: "bearer",
    expires_in: dashboardTokens.ttlSeconds,
    account: toAccountOut(account),
  };
}

export function toAccountOut(account: { id: string; email: string; createdAt: Date }) {
  return { id: account.id, email: account.email, created_at: account.createdAt.toISOString() };
}
