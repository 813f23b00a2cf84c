/**
 * The memory tool specs the Python SDK ships (sdks/python/src/cairn/memory_tool_specs.json) are
 * the MCP server's own definitions of the five memory tools, and not stale.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  memoryToolNames,
  memoryToolSpecsFile,
  memoryToolSpecsText,
} from "../../scripts/write-memory-tool-specs.ts";
import { memoryToolNames as mcpMemoryToolNames } from "../mcp/mcp-harness.ts";

describe("the Python SDK's memory tool specs", () => {
  it("is current (run `node scripts/write-memory-tool-specs.ts` after changing a memory operation)", async () => {
    const shipped = await readFile(memoryToolSpecsFile, "utf8");
    expect(shipped).toBe(memoryToolSpecsText());
  });

  it("holds exactly the five memory tools the MCP server lists, each with an object schema", () => {
    const specs = JSON.parse(memoryToolSpecsText()) as Array<{
      name: string;
      input_schema: { type: string };
    }>;
    expect(specs.map((spec) => spec.name)).toEqual(memoryToolNames);
    expect([...memoryToolNames].sort()).toEqual([...mcpMemoryToolNames].sort());
    for (const spec of specs) expect(spec.input_schema.type).toBe("object");
  });
});
