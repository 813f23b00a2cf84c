/**
 * What every operation of the registry promises the readers of its schemas (a model reading
 * tools/list, `--help`, SDK docs): a title, a description, a description on every input field at
 * every depth, snake_case unique names, and MCP bindings that only name real input fields.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyTool, allOperations, defineTool } from "../core/index.ts";

type JsonSchema = {
  description?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema | boolean;
  prefixItems?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** Every property, at any depth of the operation's input JSON Schema, without a description. */
function undescribedFields(tool: AnyTool): string[] {
  const found: string[] = [];
  const visit = (schema: JsonSchema | boolean | undefined, at: string) => {
    if (typeof schema !== "object" || schema === null) return;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const path = at ? `${at}.${name}` : name;
      if (typeof property.description !== "string" || property.description.trim() === "") found.push(path);
      visit(property, path);
    }
    visit(schema.items, `${at}[]`);
    visit(schema.additionalProperties, `${at}{}`);
    for (const part of [...(schema.prefixItems ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
      visit(part, at);
    }
    for (const part of schema.allOf ?? []) visit(part, at);
  };
  visit(z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as JsonSchema, "");
  return found;
}

/** Keys of the operation's MCP binding that name no input field. */
function bindingProblems(tool: AnyTool): string[] {
  const binding = tool.mcp;
  if (!binding) return [];
  const fields = new Set(Object.keys(tool.input.shape));
  const named = [
    ...Object.keys(binding.rename ?? {}).map((field) => ["rename", field]),
    ...Object.keys(binding.defaults ?? {}).map((field) => ["defaults", field]),
    ...(binding.omit ?? []).map((field: string) => ["omit", field]),
    ...(binding.saidByTool ?? []).map((field: string) => ["saidByTool", field]),
    ...(binding.done ? [["done.idField", binding.done.idField as string]] : []),
  ];
  return named.filter(([, field]) => !fields.has(field)).map(([key, field]) => `${key}: ${field}`);
}

const snakeCase = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const mcpName = (tool: AnyTool) => tool.mcp?.name ?? tool.name;
const answersNothing = (tool: AnyTool) => tool.output instanceof z.ZodNull;

describe("the registry", () => {
  it.each(allOperations.map((tool) => [tool.name, tool] as const))(
    "%s has a title and a description",
    (_, tool) => {
      expect(tool.title.trim()).not.toBe("");
      expect(tool.description.trim()).not.toBe("");
    },
  );

  it.each(allOperations.map((tool) => [tool.name, tool] as const))(
    "%s describes every input field, nested ones too",
    (_, tool) => {
      expect(undescribedFields(tool)).toEqual([]);
    },
  );

  it.each(allOperations.map((tool) => [tool.name, tool] as const))(
    "%s's input schema means the same to draft-07 validators (no tuple keywords)",
    (_, tool) => {
      const text = JSON.stringify(z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }));
      expect(text).not.toContain('"prefixItems"');
      expect(text).not.toContain('"items":false');
    },
  );

  it("names operations and MCP tools in snake_case, each name once", () => {
    const names = allOperations.map((tool) => tool.name);
    const toolNames = allOperations.filter((tool) => tool.mcp).map(mcpName);
    expect([...names, ...toolNames].filter((name) => !snakeCase.test(name))).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(toolNames.filter((name, index) => toolNames.indexOf(name) !== index)).toEqual([]);
  });

  it("gives every MCP operation that answers nothing a `done` answer", () => {
    const missing = allOperations.filter((tool) => tool.mcp && answersNothing(tool) && !tool.mcp.done);
    expect(missing.map((tool) => tool.name)).toEqual([]);
  });

  it("names only real input fields in MCP bindings (rename, defaults, omit, saidByTool, done.idField)", () => {
    const problems = allOperations.flatMap((tool) =>
      bindingProblems(tool).map((problem) => `${tool.name} ${problem}`),
    );
    expect(problems).toEqual([]);
  });
});

describe("the registry checks themselves", () => {
  // A deliberately faulty operation: each check above must catch its fault.
  const faulty = defineTool({
    name: "faultyTool",
    group: "memory",
    title: "Faulty",
    description: "A definition with one fault per check.",
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    input: z.object({
      described: z.string().describe("A field with a description"),
      bare: z.string().nullable().default(null),
      entries: z.array(z.object({ inner: z.number() })).describe("Entries"),
    }),
    output: z.null(),
    auth: "api_key",
    bucket: null,
    mcp: {
      rename: { described: "renamed" },
      defaults: { ["missing_default" as "bare"]: 1 },
      omit: ["missing_omit" as "bare"],
    },
    uses: [],
    handler: async () => null,
  }) as AnyTool;

  it("finds fields without a description at the top level and nested in arrays", () => {
    expect(undescribedFields(faulty)).toEqual(["bare", "entries[].inner"]);
  });

  it("finds binding keys that name no input field", () => {
    expect(bindingProblems(faulty)).toEqual(["defaults: missing_default", "omit: missing_omit"]);
  });

  it("tells a name that is not snake_case and an operation that answers nothing", () => {
    expect(snakeCase.test(faulty.name)).toBe(false);
    expect(answersNothing(faulty) && !faulty.mcp?.done).toBe(true);
  });
});
