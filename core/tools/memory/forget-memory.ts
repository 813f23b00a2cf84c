import { z } from "zod";
import { contentHashOf, identityDigest } from "../../memory/write-memory.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { memoryNotFound } from "./get-memory.ts";
import { memoryIdParameter } from "./schemas.ts";

export const forgetMemory = defineTool({
  name: "forget_memory",
  group: "memory",
  title: "Forget a memory",
  description: "Permanently delete a memory when asked to forget it; find its id with recall.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ memory_id: memoryIdParameter.describe("Id of the memory, e.g. from recall") }),
  output: z.null(),
  auth: "api_key",
  bucket: "memory_ops",
  http: { method: "DELETE", path: "/v1/memory/:memory_id", status: 204 },
  mcp: { done: { status: "forgotten", idField: "memory_id" }, saidByTool: ["memory_id"] },
  uses: ["memoryWriter", "secretCipher", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const deleted = await context.platform.storage.memories.transaction(async (store) => {
      const row = await store.getAny(accountId, input.memory_id);
      if (!row) return null;
      await store.addTombstone(
        accountId,
        await identityDigest(
          context.platform.secretCipher,
          row.scope,
          row.kind,
          await contentHashOf(row.content),
        ),
        context.now,
      );
      return store.delete(accountId, input.memory_id);
    });
    if (deleted === null) throw memoryNotFound();
    // The rows embedded with it as context lost their vectors: they are embedded again without it.
    context.platform.memoryWriter.forgotten(deleted);
    return null;
  },
});
