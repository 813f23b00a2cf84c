import { z } from "zod";
import { hybridRecall } from "../../memory/hybrid-recall.ts";
import type { RecallRequest } from "../../memory/recall.ts";
import { defineTool } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const recall = defineTool({
  name: "recall",
  group: "memory",
  title: "Recall memories",
  description:
    "Search memories by the words of a query (full text, plus related memories and recency, and by meaning when semantic search is on); returns the best matches with a score. Call it early in a task to pick up what is already known.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    q: z.string().min(1).max(400).describe("What to look for, in plain words"),
    scope: scope.optional().describe(fieldDescriptions.scopeFilter),
    limit: boundedInteger(1, 50, 10).describe("Most memories to return"),
  }),
  output: z.object({
    query: z.string(),
    memories: z.array(memoryOut.extend({ score: z.number() })),
    warnings: z
      .array(z.string())
      .optional()
      .describe("Present when semantic search could not take part: the results are lexical only"),
  }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/search", status: 200 },
  mcp: { rename: { q: "query" }, defaults: { scope: "default" } },
  async handler(context, input) {
    const accountId = await settledAccount(context, { accesses: false });
    const { config, memoryEmbedder, memorySearch, memoryWriter, storage } = context.platform;
    const { memories } = storage;
    const request: RecallRequest = {
      query: input.q,
      scope: input.scope,
      limit: input.limit,
      now: context.now,
      commonTermRows: config.SVC_MEMORY_COMMON_TERM_ROWS,
    };
    const { recalled, warnings } = await memoryWriter.searching(accountId, async () =>
      memoryEmbedder
        ? await hybridRecall(
            {
              memories,
              search: memorySearch,
              embedder: memoryEmbedder,
              fallbackLimit: config.SVC_MEMORY_VECTOR_FALLBACK_LIMIT,
              efSearch: config.SVC_MEMORY_HNSW_EF_SEARCH,
            },
            accountId,
            request,
            context.signal,
          )
        : { recalled: await memorySearch.recall(accountId, request), warnings: [] },
    );
    // Counted now, written with other searches' counts shortly (memory-writer.ts).
    const unwritten = memoryWriter.accessed(
      accountId,
      recalled.map((hit) => hit.record.id),
      context.now,
    );
    return {
      query: input.q,
      memories: recalled.map(({ record, score }) => ({
        ...toMemoryOut({
          ...record,
          accessCount: record.accessCount + (unwritten.get(record.id) ?? 1),
          lastAccessedAt: context.now,
        }),
        score,
      })),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  },
});
