import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { fieldDescriptions, scope } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const memoryMetrics = defineTool({
  name: "memory_metrics",
  group: "memory",
  title: "Memory metrics",
  description: "Count live, current memories by kind, and how many carry an embedding.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ scope: scope.optional().describe(fieldDescriptions.scopeFilter) }),
  output: z.object({
    total_memories: z.number().int(),
    by_kind: z.record(z.string(), z.number().int()),
    embedded_memories: z.number().int(),
    embedding_coverage: z.number(),
    embedding_model_id: z.string().nullable(),
  }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/metrics", status: 200 },
  uses: ["memoryEmbedder", "memoryWriter", "storage"],
  async handler(context, input) {
    const { memoryEmbedder, storage } = context.platform;
    // Coverage counts vectors on the path queries use now (null until the provider first answers).
    const path = memoryEmbedder?.path() ?? undefined;
    const metrics = await storage.memories.metrics(
      await settledAccount(context),
      input.scope,
      context.now,
      path,
    );
    const coverage =
      metrics.total === 0 ? 0 : Math.round((metrics.embedded / metrics.total) * 1_000_000) / 1_000_000;
    return {
      total_memories: metrics.total,
      by_kind: metrics.byKind,
      embedded_memories: metrics.embedded,
      embedding_coverage: coverage,
      embedding_model_id: path?.modelId ?? null,
    };
  },
});
