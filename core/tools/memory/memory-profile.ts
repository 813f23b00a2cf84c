import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { boundedInteger, fieldDescriptions, memoryOut, scope, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

const stableKinds = new Set(["fact", "preference", "instruction"]);

export const memoryProfile = defineTool({
  name: "memory_profile",
  group: "memory",
  title: "Memory profile",
  description:
    "Stable facts, preferences and instructions (static) and recent goals, notes and summaries (dynamic) about the user and project.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    scope: scope.optional().describe(fieldDescriptions.scopeFilter),
    limit: boundedInteger(1, 100, 20).describe("Most in each of static and dynamic"),
  }),
  output: z.object({ static: z.array(memoryOut), dynamic: z.array(memoryOut) }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/profile", status: 200 },
  // No scope default: omitted or null reads every scope, on MCP as on REST (CONTRACT §3).
  mcp: { saidByTool: ["limit"] },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const rows = await context.platform.storage.memories.list(
      await settledAccount(context),
      { scope: input.scope, includeSuperseded: false, limit: 4 * input.limit, offset: 0 },
      context.now,
    );
    return {
      static: rows
        .filter((row) => stableKinds.has(row.kind))
        .slice(0, input.limit)
        .map(toMemoryOut),
      dynamic: rows
        .filter((row) => !stableKinds.has(row.kind))
        .slice(0, input.limit)
        .map(toMemoryOut),
    };
  },
});
