import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { defineTool } from "../../tool.ts";
import { memoryIdParameter, memoryOut, toMemoryOut } from "./schemas.ts";
import { settledAccount } from "./settled-account.ts";

export const memoryNotFound = () => new ServiceError("memory_not_found", "Memory not found");

export const getMemory = defineTool({
  name: "get_memory",
  group: "memory",
  title: "Get a memory",
  description: "Get one memory by id, superseded ones too; an expired memory is gone (memory_not_found).",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ memory_id: memoryIdParameter.describe("Memory id") }),
  output: memoryOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/memory/:memory_id", status: 200 },
  uses: ["memoryWriter", "storage"],
  async handler(context, input) {
    const row = await context.platform.storage.memories.get(
      await settledAccount(context),
      input.memory_id,
      context.now,
    );
    if (!row) throw memoryNotFound();
    return toMemoryOut(row);
  },
});
