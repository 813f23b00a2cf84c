import { requireAccount, type ToolContext } from "../../tool.ts";

/**
 * The calling account, its queued writes linked first: a read sees the client's own writes with
 * their relations and supersessions (docs/memory.md#writes). When linking cannot write (a full
 * disk), the read still answers, with the rows as they are; the writes stay queued and are linked
 * once it can. Its access counts are written first too, unless `accesses` is false (a search
 * shows its own rows' unwritten counts instead).
 */
export async function settledAccount(
  context: ToolContext<"memoryWriter">,
  options: { accesses?: boolean } = {},
): Promise<string> {
  const accountId = requireAccount(context);
  try {
    await context.platform.memoryWriter.settle(accountId, options);
  } catch (error) {
    context.logger.warn({ err: error }, "memory linking failed; reading without the newest relations");
  }
  return accountId;
}
