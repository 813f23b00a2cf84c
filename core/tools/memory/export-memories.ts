import { z } from "zod";
import { decodeExportCursor, encodeExportCursor, exportPage } from "../../memory/export-page.ts";
import type { MemoryRecord, RelationRecord } from "../../ports/memory-store.ts";
import { defineTool } from "../../tool.ts";
import { fieldDescriptions, memoryKinds, relationTypes, scope } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

/** Export format version, so future importers can tell what they read. */
export const exportVersion = 1;

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

const exportRelation = z.object({
  source_memory_id: z.string(),
  target_memory_id: z.string(),
  relation_type: z.enum(relationTypes),
  confidence: z.number(),
});

const iso = (date: Date | null) => date?.toISOString() ?? null;

const shapes = {
  memory: (row: MemoryRecord): z.input<typeof exportMemory> => ({
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
  }),
  relation: (edge: RelationRecord): z.input<typeof exportRelation> => ({
    source_memory_id: edge.sourceMemoryId,
    target_memory_id: edge.targetMemoryId,
    relation_type: edge.relationType,
    confidence: edge.confidence,
  }),
};

export const exportMemories = defineTool({
  name: "export_memories",
  group: "memory",
  title: "Export memories",
  description:
    "Export live memories (superseded ones included) and their relations, as a payload import_memories accepts as is. A page holds up to 10,000 memories and about 4 MiB; while next_cursor is not null, call again with it as cursor for the rest. Use it for backups or to move memories between servers.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    scope: scope.optional().describe(fieldDescriptions.scopeFilter),
    cursor: z
      .string()
      .max(512)
      .refine((text) => decodeExportCursor(text) !== null, {
        message: "cursor must be a next_cursor an export returned",
      })
      .optional()
      .describe("next_cursor of the previous page; leave out for the first page"),
  }),
  output: z.object({
    version: z.number().int(),
    memories: z.array(exportMemory),
    relations: z.array(exportRelation),
    next_cursor: z
      .string()
      .nullable()
      .describe("Where the next page starts; null when this page ends the export"),
  }),
  auth: "api_key",
  // A page is up to 4 MiB of JSON to build, check and send: an account's exports take its tokens.
  bucket: "memory_ops",
  http: { method: "GET", path: "/v1/memory/export", status: 200 },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const accountId = await settledAccount(context);
    const cursor = input.cursor === undefined ? null : decodeExportCursor(input.cursor);
    const page = await exportPage(
      context.platform.storage.memories,
      accountId,
      { scope: input.scope, cursor, now: context.now },
      shapes,
    );
    return {
      version: exportVersion,
      memories: page.memories,
      relations: page.relations,
      next_cursor: page.next && encodeExportCursor(page.next),
    };
  },
});
