/**
 * The memory screen's data: search as you type (recall; the newest memories while the query is
 * empty), one memory with its relations, and forgetting.
 */
import type { CairnClient, Memory } from "cairn-client";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "./describe-error.ts";
import { useRefState } from "./use-ref-state.ts";

export type FoundMemory = Memory & { score?: number };

export interface RelatedMemory {
  relationType: string;
  confidence: number;
  /** "to" when the shown memory is the relation's source, "from" when it is the target. */
  direction: "to" | "from";
  otherId: string;
  otherContent: string | null;
}

export interface MemoryDetail {
  memory: Memory;
  related: RelatedMemory[];
}

/** Quiet time after a keystroke before searching, so typing a word sends one search, not one per letter. */
const searchDelayMs = 150;

export function useMemory(client: CairnClient, active: boolean) {
  const [query, setQuery, queryRef] = useRefState("");
  const [results, setResults] = useState<FoundMemory[]>([]);
  /** The query the shown results answer; until it equals the typed one, the screen says it is searching. */
  const [resultsQuery, setResultsQuery] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [detail, setDetail] = useState<MemoryDetail | null>(null);
  const [reloads, setReloads] = useState(0);
  // Answers can arrive out of order; only the latest search may set the results.
  const latestSearch = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads is a trigger, not an input
  useEffect(() => {
    const search = ++latestSearch.current;
    const text = query.trim();
    setLoading(true);
    const timer = setTimeout(async () => {
      try {
        const found: FoundMemory[] = text
          ? (await client.recall(text, { limit: 20 })).memories
          : await client.listMemories({ limit: 50 });
        if (search !== latestSearch.current) return;
        setResults(found);
        setResultsQuery(text);
        setError(null);
      } catch (caught) {
        if (search === latestSearch.current) setError(describeError(caught));
      } finally {
        if (search === latestSearch.current) setLoading(false);
      }
    }, searchDelayMs);
    return () => clearTimeout(timer);
  }, [client, query, reloads]);

  const refresh = useCallback(() => setReloads((count) => count + 1), []);
  // Other clients (agents, the CLI) write memories meanwhile: reload each time the screen is shown.
  useEffect(() => {
    if (active) refresh();
  }, [active, refresh]);

  /** Loads a memory and its relations for the detail view; false when that failed (the error is set). */
  const open = useCallback(
    async (memoryId: string): Promise<boolean> => {
      try {
        const [memory, { relations }] = await Promise.all([
          client.getMemory(memoryId),
          client.memoryRelations(memoryId),
        ]);
        const related = await Promise.all(
          relations.map(async (relation): Promise<RelatedMemory> => {
            const direction = relation.source_memory_id === memoryId ? "to" : "from";
            const otherId = direction === "to" ? relation.target_memory_id : relation.source_memory_id;
            const other = await client.getMemory(otherId).catch(() => null);
            return {
              relationType: relation.relation_type,
              confidence: relation.confidence,
              direction,
              otherId,
              otherContent: other?.content ?? null,
            };
          }),
        );
        setDetail({ memory, related });
        setError(null);
        return true;
      } catch (caught) {
        setError(describeError(caught));
        return false;
      }
    },
    [client],
  );

  const close = useCallback(() => setDetail(null), []);

  const forget = useCallback(
    async (memoryId: string) => {
      try {
        await client.forgetMemory(memoryId);
        setDetail(null);
        setResults((previous) => previous.filter((memory) => memory.id !== memoryId));
        setError(null);
      } catch (caught) {
        setError(describeError(caught));
      }
      refresh();
    },
    [client, refresh],
  );

  const searching = loading || resultsQuery !== query.trim();
  return { query, queryRef, setQuery, results, searching, error, detail, refresh, open, close, forget };
}
