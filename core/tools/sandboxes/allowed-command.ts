/** The account's command allowlist, checked for exec and background processes alike. */
import { ServiceError } from "../../errors.ts";
import { PatternTimeout } from "../../ports/pattern-work.ts";
import type { AllowlistRule } from "../../sandboxes/allowlist/allowlist.ts";
import { requireAccount, type ToolContext } from "../../tool.ts";

// The allowlist check parses the command (up to 1 MiB) and matches the account's patterns against
// each program's arguments, on a pattern thread; past this it refuses rather than waits.
const allowlistCheckMs = 10_000;

/** Refuses (403 `command_not_allowed`) a command the account's allowlist does not permit. */
export async function requireAllowedCommand(
  context: ToolContext<"storage" | "patternWork">,
  command: string,
): Promise<void> {
  const rules = (await context.platform.storage.allowlists.get(requireAccount(context))) as AllowlistRule[];
  if (rules.length === 0) return;
  const check = await context.platform.patternWork
    .run(requireAccount(context), "checkAllowlist", { rules, command }, allowlistCheckMs)
    .catch((error: unknown) => {
      if (!(error instanceof PatternTimeout)) throw error;
      return { allowed: false as const, reason: "the command took too long to check against the allowlist" };
    });
  if (!check.allowed) throw new ServiceError("command_not_allowed", check.reason);
}
