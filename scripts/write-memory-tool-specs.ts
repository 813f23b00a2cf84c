/**
 * Writes the five memory tools' specs (name, description, JSON Schema of the arguments) into the
 * Python SDK's package, sdks/python/src/cairn/memory_tool_specs.json, for `cairn.agent_tools`.
 * They come from `mcpTools()`, the same definitions the MCP server lists, so an LLM given the
 * Python wrapper sees exactly the tools an MCP client sees. test/sdks/memory-tool-specs.test.ts
 * fails when the shipped file is stale: run `node scripts/write-memory-tool-specs.ts` after
 * changing a memory operation.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { mcpTools } from "../transports/mcp/tools.ts";

/** The wrapper's tools, in the order the contract lists them (§7). */
export const memoryToolNames = ["remember", "ingest_memory", "recall", "memory_profile", "forget_memory"];

export const memoryToolSpecsFile = new URL(
  "../sdks/python/src/cairn/memory_tool_specs.json",
  import.meta.url,
);

/** The file's text: one object per tool, `{name, description, input_schema}`. */
export function memoryToolSpecsText(): string {
  const tools = new Map(mcpTools().map((tool) => [tool.name, tool.definition]));
  const specs = memoryToolNames.map((name) => {
    const definition = tools.get(name);
    if (!definition) throw new Error(`the MCP tools have no ${name}`);
    return { name, description: definition.description, input_schema: definition.inputSchema };
  });
  return `${JSON.stringify(specs, null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  await writeFile(memoryToolSpecsFile, memoryToolSpecsText());
  console.log(`wrote ${memoryToolSpecsFile.pathname}`);
}
