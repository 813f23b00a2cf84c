import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { fieldDescriptions, memoryKinds, relationTypes, scope } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

/** Export format version, so future importers can tell what they read. */
export const exportVersion = 1;
export const exportLimit = 10_000;

const exportMemory = z.object({
  id: z.string(),
  scope: z.string(),
  kind: z.enum(memoryKinds),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  source_session_id: z.string().nullable(),
  source_content: z.string().nullable(),
  document_date: z.string().nullable(),
  event_dates: z.array(z.string()),
  importance: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().nullable(),
  superseded_at: z.string().nullable(),
  superseded_by_id: z.string().nullable(),
});

export const exportMemories = defineTool({
  name: "export_memories",
  group: "memory",
  title: "Export memories",
  description:
    "Export up to 10,000 live memories (superseded ones included) and the relations among them, as a payload import_memories accepts as is. Use it for backups or to move memories between servers.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ scope: scope.optional().describe(fieldDescriptions.scopeFilter) }),
  output: z.object({
    version: z.number().int(),
    memories: z.array(exportMemory),
    relations: z.array(
      z.object({
        source_memory_id: z.string(),
        target_memory_id: z.string(),
        relation_type: z.enum(relationTypes),
        confidence: z.number(),
      }),
    ),
  }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/export", status: 200 },
  async handler(context, input) {
    const accountId = await settledAccount(context);
    const { memories } = context.platform.storage;
    const rows = await memories.exportRows(accountId, input.scope, exportLimit, context.now);
    const relations = await memories.relationsWithin(
      accountId,
      rows.map((row) => row.id),
    );
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    return {
      version: exportVersion,
      memories: rows.map((row) => ({
        id: row.id,
        scope: row.scope,
        kind: row.kind,
        content: row.content,
        metadata: row.metadata,
        source_session_id: row.sourceSessionId,
        source_content: row.sourceContent,
        document_date: iso(row.documentDate),
        event_dates: row.eventDates,
        importance: row.importance,
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
        expires_at: iso(row.expiresAt),
        superseded_at: iso(row.supersededAt),
        superseded_by_id: row.supersededById,
      })),
      relations: relations.map((relation) => ({
        source_memory_id: relation.sourceMemoryId,
        target_memory_id: relation.targetMemoryId,
        relation_type: relation.relationType,
        confidence: relation.confidence,
      })),
    };
  },
});
