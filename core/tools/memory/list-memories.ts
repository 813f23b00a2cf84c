import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const listMemories = defineTool({
  name: "list_memories",
  group: "memory",
  title: "List memories",
  description:
    "List live memories, most recently updated first, a page at a time (limit, offset); superseded ones only with include_superseded. To search, use recall.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    scope: scope.optional().describe(fieldDescriptions.scopeFilter),
    include_superseded: z.boolean().default(false).describe("Also list memories a newer one replaced"),
    limit: boundedInteger(1, 100, 50).describe("Page size"),
    offset: boundedInteger(0, Number.MAX_SAFE_INTEGER, 0).describe("Memories to skip, for paging"),
  }),
  output: z.array(memoryOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory", status: 200 },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const rows = await context.platform.storage.memories.list(
      await settledAccount(context),
      {
        scope: input.scope,
        includeSuperseded: input.include_superseded,
        limit: input.limit,
        offset: input.offset,
      },
      context.now,
    );
    return rows.map(toMemoryOut);
  },
});
