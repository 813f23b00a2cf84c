import { z } from "zod";
import { hybridRecall } from "../../memory/hybrid-recall.ts";
import type { RecallRequest } from "../../memory/recall.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const recall = defineTool({
  name: "recall",
  group: "memory",
  title: "Recall memories",
  description:
    "Search memories (full text, related memories, recency, and meaning when semantic search is on), best first.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    q: z.string().min(1).max(400).describe("In plain words"),
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
  // No scope default: omitted or null searches every scope, on MCP as on REST (CONTRACT §3).
  mcp: { rename: { q: "query" }, saidByTool: ["limit"] },
  uses: ["config", "memoryEmbedder", "memorySearch", "memoryWriter", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { config, memoryEmbedder, memorySearch, memoryWriter, storage } = context.platform;
    const { memories } = storage;
    const search = (unlessLinksQueued: boolean) => {
      const request: RecallRequest = {
        query: input.q,
        scope: input.scope,
        limit: input.limit,
        now: context.now,
        commonTermRows: config.SVC_MEMORY_COMMON_TERM_ROWS,
        unlessLinksQueued,
        // Only the search after `settledAccount` (below) does not check the queue.
        afterLinking: !unlessLinksQueued,
      };
      return memoryWriter.searching(accountId, async () => {
        if (memoryEmbedder === null) {
          const recalled = await memorySearch.recall(accountId, request);
          return recalled && { recalled, warnings: [] };
        }
        return hybridRecall(
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
        );
      });
    };
    // The account's own writes are read linked. Writes committed here and not linked yet are
    // linked first (an agent's recall just after its remember); otherwise nearly always nothing
    // is queued, which the search finds out in its first read, and if something is (another
    // replica's writes), it is linked and the search runs again.
    let answer = memoryWriter.linkPending(accountId) ? null : await search(true);
    if (answer === null) {
      await settledAccount(context, { accesses: false });
      answer = await search(false);
    }
    if (answer === null) throw new Error("a recall that does not check the link queue answered null");
    const { recalled, warnings } = answer;
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
