/**
 * Corrections caught by meaning for one memory that has its vector (corrections.ts): the
 * supersessions and "updates" edges it adds to what the lexical linker found.
 *
 * Where it runs: relation detection on write (link-writes.ts) runs about 20 ms after the write
 * commits, and every read settles it first, while the background embedder computes the new
 * memory's vector later (docs/memory.md#embeddings: writes never wait). So the vector is not
 * there when the lexical linker runs; `createCorrectionLinker` runs after the embedder stored a
 * batch (its `afterStore`), for the rows that are new statements, in the account's write lane
 * (memory-writer.ts `exclusive`), applied with `applyLinks` like the lexical linker's plans.
 * Either may run first: each supersedes only rows still current, and neither makes an update of
 * a pair the other does. Reads never wait for it: it waits for the model server, and a read must
 * not (docs/memory.md#relations).
 *
 * The cost is bounded: the memory is compared with its `correctionCandidates` nearest live,
 * current rows of its own scope stated before it (the store's `nearest`: the path's HNSW
 * index on PostgreSQL), never with every row, and a batch holds at most the provider's batch
 * size of rows. A pair the lexical rules already found an update is left to them (its older row
 * is superseded, so not current).
 */
import type { Clock } from "../ports/clock.ts";
import type { EmbeddingPath, MemoryRecord, MemoryStore } from "../ports/memory-store.ts";
import { correctionCandidates, correctionConfidence, correctionProfile } from "./corrections.ts";
import type { StoredBatch } from "./embedder.ts";
import { applyLinks, type LinkPlan } from "./link-writes.ts";
import type { MemoryWriter } from "./memory-writer.ts";
import { detectRelation } from "./relations.ts";

export interface CorrectionSearch {
  path: EmbeddingPath;
  /** As for search (`NearestRequest`): the SQLite scan bound, PostgreSQL's HNSW candidate list. */
  fallbackLimit: number;
  efSearch: number;
}

/** The corrections `memory` (with `vector` on `search.path`) makes to earlier memories of its scope. */
export async function planCorrections(
  store: MemoryStore,
  accountId: string,
  memory: MemoryRecord,
  vector: Float32Array,
  search: CorrectionSearch,
  now: Date,
): Promise<LinkPlan> {
  const plan: LinkPlan = { supersessions: [], edges: [] };
  const nearest = await store.nearest(
    accountId,
    {
      ...search,
      vector,
      scope: memory.scope,
      // The memory itself is usually the nearest row.
      limit: correctionCandidates + 1,
      includeSuperseded: false,
    },
    now,
  );
  const similarities = new Map(
    nearest.filter((row) => row.id !== memory.id).map((row) => [row.id, row.similarity]),
  );
  const rows = await store.getMany(accountId, [...similarities.keys()], now);
  const newer = correctionProfile(memory.content);
  const superseded: string[] = [];
  // Most similar first, as `nearest` answered: the edges come out in a fixed order.
  rows.sort((first, second) => (similarities.get(second.id) ?? 0) - (similarities.get(first.id) ?? 0));
  for (const older of rows) {
    // Stated last before the memory: a row stated again after it is current again (the last
    // statement wins, as in link-writes.ts).
    if (older.updatedAt >= memory.updatedAt || older.supersededAt !== null) continue;
    if (detectRelation(memory, older)?.type === "updates") continue;
    const confidence = correctionConfidence(
      newer,
      correctionProfile(older.content),
      similarities.get(older.id) ?? 0,
    );
    if (confidence === null) continue;
    superseded.push(older.id);
    plan.edges.push({
      sourceMemoryId: memory.id,
      targetMemoryId: older.id,
      relationType: "updates",
      confidence,
      // When the memory was stated, as a lexical edge: not when its vector came.
      createdAt: memory.updatedAt,
    });
  }
  if (superseded.length > 0)
    plan.supersessions.push({ byId: memory.id, targetIds: superseded, at: memory.updatedAt });
  return plan;
}

export interface CorrectionLinkerSettings {
  memories: MemoryStore;
  writer: Pick<MemoryWriter, "exclusive">;
  clock: Clock;
  /** SVC_MEMORY_VECTOR_FALLBACK_LIMIT and SVC_MEMORY_HNSW_EF_SEARCH, as for search. */
  fallbackLimit: number;
  efSearch: number;
}

/**
 * The embedder's `afterStore`: links the corrections of the batch's new statements (rows live and
 * written at or after `writtenSince`; a backfill or a re-embed for a new model corrects nothing),
 * oldest first, so a chain of corrections ends at the newest. Each memory's plan is worked out
 * holding no transaction and, when it found something, again inside the one that applies it (the
 * account's memories may have changed in between).
 */
export function createCorrectionLinker(settings: CorrectionLinkerSettings) {
  const { memories, writer, clock } = settings;
  return async ({ path, embeddings, writtenSince }: StoredBatch): Promise<void> => {
    const search = { path, fallbackLimit: settings.fallbackLimit, efSearch: settings.efSearch };
    for (const [accountId, stored] of Map.groupBy(embeddings, (embedding) => embedding.accountId)) {
      const vectors = new Map(stored.map((embedding) => [embedding.memoryId, embedding.vector]));
      const rows = (await memories.getMany(accountId, [...vectors.keys()], clock.now()))
        .filter((row) => row.updatedAt >= writtenSince)
        .sort(
          (first, second) =>
            first.updatedAt.getTime() - second.updatedAt.getTime() || (first.id < second.id ? -1 : 1),
        );
      if (rows.length === 0) continue;
      await writer.exclusive(accountId, async () => {
        for (const row of rows) {
          const vector = vectors.get(row.id) as Float32Array;
          const found = await planCorrections(memories, accountId, row, vector, search, clock.now());
          if (found.edges.length === 0) continue;
          await memories.transaction(async (store) => {
            const now = clock.now();
            const [memory] = await store.getMany(accountId, [row.id], now);
            if (memory === undefined) return;
            await applyLinks(
              store,
              accountId,
              await planCorrections(store, accountId, memory, vector, search, now),
            );
          });
        }
      });
    }
  };
}
