import { contentHashOf, identityDigest } from "../../memory/write-memory.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { memoryCreateRequest, memoryOut, toMemoryInput, toMemoryOut } from "./schemas.ts";

export const remember = defineTool({
  name: "remember",
  group: "memory",
  title: "Remember",
  description:
    "Store one durable memory. The same content again updates it; a newer memory updating an older one supersedes it.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: memoryCreateRequest,
  output: memoryOut,
  auth: "api_key",
  bucket: "memory_ops",
  http: { method: "POST", path: "/v1/memory", status: 201 },
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: {
    omit: ["source_session_id", "expires_at", "source_content", "document_date", "event_dates", "importance"],
    saidByTool: ["metadata"],
  },
  uses: ["memoryWriter", "secretCipher"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const contentHash = await contentHashOf(input.content);
    const record = await context.platform.memoryWriter.remember(
      accountId,
      { ...toMemoryInput(input), contentHash },
      await identityDigest(context.platform.secretCipher, input.scope, input.kind, contentHash),
      context.now,
    );
    // memory.remembered is queued from the write's link job (docs/plugins.md#memory-remembered).
    return toMemoryOut(record);
  },
});
