import { z } from "zod";
import { asksForHistory, queryTokens, scoreCandidates } from "../../memory/index.ts";
import type { MemoryRecord } from "../../ports/memory-store.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";

// Newest matching rows fetched per query token: bounds the work of a common word.
const perTokenLimit = 100;
// Relation neighbours are fetched for this many of the best lexical hits.
const neighbourSeeds = 10;

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
    const accountId = requireAccount(context);
    const { memories } = context.platform.storage;
    const tokens = queryTokens(input.q);
    if (tokens.length === 0) return { query: input.q, memories: [] };
    const history = asksForHistory(input.q);
    const found = await memories.searchCandidates(
      accountId,
      { scope: input.scope, includeSuperseded: history, tokens, perTokenLimit },
      context.now,
    );
    const score = (rows: MemoryRecord[], boosts: Map<string, number>) =>
      scoreCandidates({
        query: input.q,
        now: context.now,
        candidates: rows.map((row) => ({ ...row, relationBoost: boosts.get(row.id) })),
        documentFrequency: found.documentFrequency,
        totalDocuments: found.totalDocuments,
      });

    // Second pass: 1-hop relation neighbours of the best hits join with the edge's confidence.
    const firstPass = score(found.rows, new Map());
    const seeds = firstPass.slice(0, neighbourSeeds).map((hit) => hit.id);
    const edges = await memories.relationsTouching(accountId, seeds);
    const boosts = new Map<string, number>();
    for (const edge of edges) {
      for (const [from, to] of [
        [edge.sourceMemoryId, edge.targetMemoryId],
        [edge.targetMemoryId, edge.sourceMemoryId],
      ]) {
        if (seeds.includes(from) && !seeds.includes(to))
          boosts.set(to, Math.max(boosts.get(to) ?? 0, edge.confidence));
      }
    }
    const known = new Set(found.rows.map((row) => row.id));
    const neighbours = (
      await memories.getMany(
        accountId,
        [...boosts.keys()].filter((id) => !known.has(id)),
        context.now,
      )
    ).filter((row) => input.scope === undefined || row.scope === input.scope);
    const ranked = score([...found.rows, ...neighbours], boosts).slice(0, input.limit);

    const byId = new Map([...found.rows, ...neighbours].map((row) => [row.id, row]));
    await memories.recordAccess(
      accountId,
      ranked.map((hit) => hit.id),
      context.now,
    );
    return {
      query: input.q,
      memories: ranked.map((hit) => {
        const row = byId.get(hit.id) as MemoryRecord;
        return {
          ...toMemoryOut({ ...row, accessCount: row.accessCount + 1, lastAccessedAt: context.now }),
          score: hit.score,
        };
      }),
    };
  },
});
