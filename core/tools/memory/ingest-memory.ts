import { z } from "zod";
import { extractMemories } from "../../memory/index.ts";
import { prepareMemories, writeMemories } from "../../memory/write-memory.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import {
  dateTime,
  fieldDescriptions,
  memoryCreateFields,
  memoryKinds,
  memoryOut,
  scope,
  storableString,
  toMemoryOut,
} from "./schemas.ts";

export const ingestMemory = defineTool({
  name: "ingest_memory",
  group: "memory",
  title: "Ingest a document",
  description:
    "Extract memories (kinds and dates detected) from a document or transcript (speaker: text lines), at most 50.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    content: storableString()
      .min(1)
      .max(262_144)
      .refine((text) => text.trim().length > 0, "content must contain text, not only whitespace")
      .describe("Document or transcript text"),
    scope: scope.default("default").describe(fieldDescriptions.scope),
    kind: z
      .enum(["auto", ...memoryKinds])
      .default("auto")
      .describe("Kind of every memory extracted; auto detects each one's"),
    metadata: memoryCreateFields.metadata,
    source_session_id: memoryCreateFields.source_session_id,
    expires_at: memoryCreateFields.expires_at,
    document_date: dateTime
      .nullable()
      .default(null)
      .describe("ISO-8601 date the document was written; anchors relative dates"),
  }),
  output: z.object({ source_session_id: z.string().nullable(), memories: z.array(memoryOut) }),
  auth: "api_key",
  bucket: "memory_ops",
  http: { method: "POST", path: "/v1/memory/ingest", status: 201 },
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["kind", "metadata", "expires_at", "document_date"], saidByTool: ["source_session_id"] },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const extracted = extractMemories({
      content: input.content,
      kind: input.kind,
      documentDate: input.document_date,
    });
    const prepared = await prepareMemories(
      extracted.map((memory) => ({
        content: memory.content,
        scope: input.scope,
        kind: memory.kind,
        metadata: input.metadata,
        sourceSessionId: input.source_session_id,
        expiresAt: input.expires_at,
        sourceContent: memory.sourceContent,
        documentDate: input.document_date,
        eventDates: memory.eventDates,
        importance: memory.importance,
      })),
      context.now,
    );
    const { memoryWriter } = context.platform;
    await memoryWriter.settle(accountId);
    // Behind the account's other writes, not beside them (memory-writer.ts); large: up to 256 KiB
    // of text and its postings (SQLite writes them off the serving thread).
    const { records, unembedded } = await memoryWriter.exclusive(accountId, () =>
      context.platform.storage.memories.transaction(
        async (store) => {
          const { ids, unembedded } = await writeMemories(store, accountId, prepared, context.now);
          const rows = new Map((await store.getAnyMany(accountId, ids)).map((row) => [row.id, row]));
          return { records: ids.flatMap((id) => rows.get(id) ?? []), unembedded };
        },
        { large: true },
      ),
    );
    memoryWriter.written(accountId, [...records.map((record) => record.id), ...unembedded]);
    return { source_session_id: input.source_session_id, memories: records.map(toMemoryOut) };
  },
});
