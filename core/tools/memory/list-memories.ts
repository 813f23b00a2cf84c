import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { memoryOut, queryBoolean, queryInteger, scope, toMemoryOut } from "./schemas.ts";

export const listMemories = defineTool({
  name: "list_memories",
  description: "List live memories, newest first; superseded ones only with include_superseded.",
  input: z.object({
    scope: scope.optional(),
    include_superseded: queryBoolean(false),
    limit: queryInteger(1, 100, 50),
    offset: queryInteger(0, Number.MAX_SAFE_INTEGER, 0),
  }),
  output: z.array(memoryOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory", status: 200 },
  mcp: false,
  async handler(context, input) {
    const rows = await context.platform.storage.memories.list(
      requireAccount(context),
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
