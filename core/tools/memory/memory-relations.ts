import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { memoryNotFound } from "./get-memory.ts";
import { boundedInteger, memoryIdParameter, relationOut, toRelationOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const memoryRelations = defineTool({
  name: "memory_relations",
  group: "memory",
  title: "Memory relations",
  description:
    "Outgoing relations of a memory (updates, extends, related, derives) to live memories, strongest first. Use it to follow what a memory replaced or builds on.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    memory_id: memoryIdParameter.describe("Memory id"),
    limit: boundedInteger(1, 100, 20).describe("Most relations to return"),
  }),
  output: z.object({ memory_id: z.string(), relations: z.array(relationOut) }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/:memory_id/relations", status: 200 },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const accountId = await settledAccount(context);
    const { memories } = context.platform.storage;
    if (!(await memories.get(accountId, input.memory_id, context.now))) throw memoryNotFound();
    const relations = await memories.relations(accountId, input.memory_id, input.limit, context.now);
    return { memory_id: input.memory_id, relations: relations.map(toRelationOut) };
  },
});
