import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const recall = defineTool({
  name: "recall",
  group: "memory",
  title: "Recall memories",
  description:
    "Search memories by the words of a query (full text, plus related memories and recency); returns the best matches with a score. Call it early in a task to pick up what is already known.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    q: z.string().min(1).max(400).describe("What to look for, in plain words"),
    scope: scope.optional().describe(fieldDescriptions.scopeFilter),
    limit: boundedInteger(1, 50, 10).describe("Most memories to return"),
  }),
  output: z.object({ query: z.string(), memories: z.array(memoryOut.extend({ score: z.number() })) }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/search", status: 200 },
  mcp: { rename: { q: "query" }, defaults: { scope: "default" } },
  async handler(context, input) {
    const accountId = await settledAccount(context);
    const { memories } = context.platform.storage;
    const recalled = await context.platform.memorySearch.recall(accountId, {
      query: input.q,
      scope: input.scope,
      limit: input.limit,
      now: context.now,
      commonTermRows: context.platform.config.SVC_MEMORY_COMMON_TERM_ROWS,
    });
    await memories.recordAccess(
      accountId,
      recalled.map((hit) => hit.record.id),
      context.now,
    );
    return {
      query: input.q,
      memories: recalled.map(({ record, score }) => ({
        ...toMemoryOut({ ...record, accessCount: record.accessCount + 1, lastAccessedAt: context.now }),
        score,
      })),
    };
  },
});
