import { ServiceError } from "../../errors.ts";
import { identityDigest, linkMemories, upsertMemory } from "../../memory/write-memory.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { memoryCreateRequest, memoryOut, toMemoryOut } from "./schemas.ts";

export const remember = defineTool({
  name: "remember",
  group: "memory",
  title: "Remember",
  description:
    "Store a durable memory: a fact, preference, decision, goal or instruction, one per call. Writing the same content again updates that memory instead of duplicating it; a newer memory that updates an older one supersedes it.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: memoryCreateRequest,
  output: memoryOut,
  auth: "api_key",
  bucket: "memory_ops",
  http: { method: "POST", path: "/v1/memory", status: 201 },
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: {
    omit: ["source_session_id", "expires_at", "source_content", "document_date", "event_dates", "importance"],
  },
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { memories } = context.platform.storage;
    const record = await memories.transaction(async (store) => {
      const id = await upsertMemory(
        store,
        accountId,
        {
          content: input.content,
          scope: input.scope,
          kind: input.kind,
          metadata: input.metadata,
          sourceSessionId: input.source_session_id,
          expiresAt: input.expires_at,
          sourceContent: input.source_content,
          documentDate: input.document_date,
          eventDates: input.event_dates,
          importance: input.importance,
        },
        context.now,
      );
      await store.clearTombstone(
        accountId,
        await identityDigest(context.platform.secretCipher, input.scope, input.kind, input.content),
      );
      const written = await store.getAny(accountId, id);
      if (!written) throw new ServiceError("internal_error", "Memory vanished while being written");
      // Linking marks older rows superseded, never the new one: no second read is needed.
      await linkMemories(store, accountId, [written], context.now);
      return written;
    });
    return toMemoryOut(record);
  },
});
