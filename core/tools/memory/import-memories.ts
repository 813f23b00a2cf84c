import { z } from "zod";
import {
  contentHashesOf,
  identityDigest,
  prepareMemories,
  writeMemories,
} from "../../memory/write-memory.ts";
import type { RelationRecord } from "../../ports/memory-store.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import {
  dateTime,
  memoryCreateFields,
  memoryOut,
  relationTypes,
  toMemoryInput,
  toMemoryOut,
} from "./schemas.ts";

const importMemory = z.object({
  ...memoryCreateFields,
  id: z
    .string()
    .max(36)
    .nullable()
    .default(null)
    .describe("Id within the batch, for relations and superseded_by_id; not kept"),
  // Carried over from an export so a round trip keeps its history.
  created_at: dateTime.nullable().optional().describe("ISO-8601 creation time to keep; default now"),
  updated_at: dateTime.nullable().optional().describe("ISO-8601 last update time to keep; default now"),
  superseded_at: dateTime.nullable().optional().describe("ISO-8601 time a newer memory replaced it"),
  superseded_by_id: z
    .string()
    .max(36)
    .nullable()
    .optional()
    .describe("Batch id of the memory that replaced it"),
});

const importRelation = z.object({
  source_memory_id: z.string().max(36).describe("Batch id of the memory the relation starts from"),
  target_memory_id: z.string().max(36).describe("Batch id of the memory it points to"),
  relation_type: z.enum(relationTypes).describe("How source relates to target; updates means it replaces it"),
  confidence: z.number().min(0).max(1).default(0.5).describe("Strength of the relation, 0 to 1"),
});

export const importMemories = defineTool({
  name: "import_memories",
  group: "memory",
  title: "Import memories",
  description:
    "Import up to 500 memories and 2,000 relations in one all-or-nothing batch; an export_memories payload works as is. Ids are reassigned: relations refer to ids inside the batch. Forgotten memories are skipped.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    memories: z
      .array(importMemory)
      .min(1, "memories must hold 1 to 500 items")
      .max(500, "memories must hold 1 to 500 items; split larger imports into batches")
      .describe("Memories to write, each with an optional batch id"),
    relations: z
      .array(importRelation)
      .max(2000, "relations must hold at most 2 000 items; split larger imports into batches")
      .default([])
      .describe("Relations between memories of this batch, by batch id"),
  }),
  output: z.object({ source_session_id: z.null(), memories: z.array(memoryOut) }),
  auth: "api_key",
  bucket: "memory_ops",
  http: { method: "POST", path: "/v1/memory/import", status: 201 },
  uses: ["memoryWriter", "secretCipher", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const now = context.now;
    const { memoryWriter } = context.platform;
    await memoryWriter.settle(accountId);
    // Behind the account's other writes, not beside them (memory-writer.ts); its index terms are
    // worked out there too, so eight imports sent at once hold one import's terms, not eight
    // (a 16 MiB import's are about 100 MiB the garbage collector copies while they live).
    const { rows, unembedded } = await memoryWriter.exclusive(accountId, async () => {
      // Each content hashed once: for its row and for its identity digest.
      const hashes = await contentHashesOf(input.memories);
      const [digests, prepared] = await Promise.all([
        Promise.all(
          input.memories.map((memory, index) =>
            identityDigest(context.platform.secretCipher, memory.scope, memory.kind, hashes[index]),
          ),
        ),
        prepareMemories(
          input.memories.map((memory, index) => ({
            ...toMemoryInput(memory),
            contentHash: hashes[index],
            // Without one, a millisecond apart in the order given, the last now: creation order
            // (an export's, a session's context for embeddings) is the batch's order.
            createdAt: memory.created_at ?? new Date(now.getTime() - (input.memories.length - 1 - index)),
            updatedAt: memory.updated_at ?? undefined,
          })),
          now,
        ),
      ]);
      // Large: up to 500 memories and their postings (SQLite writes them off the serving thread).
      return context.platform.storage.memories.transaction(
        async (store) => {
          const forgotten = await store.tombstoned(accountId, digests);
          // A forgotten memory never comes back through an import.
          const kept = input.memories.flatMap((memory, index) =>
            forgotten.has(digests[index]) ? [] : [{ memory, prepared: prepared[index] }],
          );
          const { ids: written, unembedded } = await writeMemories(
            store,
            accountId,
            kept.map((entry) => entry.prepared),
            now,
            // Detection links the batch to what the account already had; links inside the batch are
            // the payload's own, so an export re-imported exports again the same.
            crypto.randomUUID(),
          );
          const newIds = new Map<string, string>();
          for (const [index, { memory }] of kept.entries())
            if (memory.id) newIds.set(memory.id, written[index]);
          for (const memory of input.memories) {
            const successor = memory.superseded_by_id ? newIds.get(memory.superseded_by_id) : undefined;
            const id = memory.id ? newIds.get(memory.id) : undefined;
            if (id && successor && successor !== id) {
              await store.supersede(accountId, [id], successor, memory.superseded_at ?? now);
            }
          }
          const relations: RelationRecord[] = [];
          for (const relation of input.relations) {
            const source = newIds.get(relation.source_memory_id);
            const target = newIds.get(relation.target_memory_id);
            // Unknown and self-referencing endpoints are skipped (docs/memory.md#export-and-import).
            if (!source || !target || source === target) continue;
            relations.push({
              sourceMemoryId: source,
              targetMemoryId: target,
              relationType: relation.relation_type,
              confidence: relation.confidence,
              createdAt: now,
            });
          }
          await store.addRelations(accountId, relations);
          const byId = new Map((await store.getAnyMany(accountId, written)).map((row) => [row.id, row]));
          return { rows: written.flatMap((id) => byId.get(id) ?? []), unembedded };
        },
        { large: true },
      );
    });
    memoryWriter.written(accountId, [...rows.map((row) => row.id), ...unembedded]);
    return { source_session_id: null, memories: rows.map(toMemoryOut) };
  },
});
