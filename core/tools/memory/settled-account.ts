import { requireAccount, type ToolContext } from "../../tool.ts";

/**
 * The calling account, its queued writes linked first: a read sees the client's own writes with
 * their relations and supersessions (docs/memory.md#writes).
 */
export async function settledAccount(context: ToolContext): Promise<string> {
  const accountId = requireAccount(context);
  await context.platform.memoryWriter.settle(accountId);
  return accountId;
}
