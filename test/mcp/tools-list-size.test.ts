/**
 * tools/list fits an agent's context: every built-in tool's definition together is at most 20,000
 * characters of JSON (issue 42), as the default list sends it (no output schemas: those go to
 * `?results=structured` connections only). `node test/bench/tools-list-size.ts` prints the figures.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../transports/mcp/tools.ts";

describe("tools/list size", () => {
  it("is at most 20,000 characters for all tools", () => {
    const definitions = mcpTools().map((tool) => tool.definition);
    // The 31 core tools, 6 background-process tools, 2 preview and 3 snapshot and activity tools.
    expect(definitions).toHaveLength(42);
    expect(JSON.stringify({ tools: definitions }).length).toBeLessThanOrEqual(20_000);
  });

  it("keeps what a model needs to call: required arguments, types, enums, enforced bounds", () => {
    const byName = new Map(mcpTools().map((tool) => [tool.name, tool.definition.inputSchema]));
    expect(byName.get("exec")).toMatchObject({
      required: ["session_id", "command"],
      properties: {
        session_id: { type: "string" },
        keep: { enum: ["head", "tail", "both"], default: "both" },
        max_output_bytes: { type: "integer", minimum: 1, maximum: 1_048_576, default: 16384 },
      },
      additionalProperties: false,
    });
    expect(byName.get("create_sandbox")).toMatchObject({
      properties: { count: { minimum: 1, maximum: 10 }, size: { enum: ["small", "medium", "large"] } },
    });
    expect(byName.get("remember")).toMatchObject({
      properties: { kind: { enum: ["fact", "preference", "goal", "instruction", "note", "summary"] } },
    });
  });
});
