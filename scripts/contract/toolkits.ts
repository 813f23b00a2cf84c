/**
 * The agent toolkits' tool specs, from the manifest's MCP tools: every MCP tool's name,
 * description and argument schema as `tools/list` shows it, the same schema in OpenAI's strict
 * form, and what an executor needs to turn a model's arguments into the operation's wire input
 * for `POST /v1/tools/{name}` (renames, the tool's defaults, which nulls are values, encoded
 * arguments, the id a 204 answer acts on). Written to the Python SDK (cairn/tool_specs.json) and
 * the JavaScript SDK (src/generated/tool-specs.ts), so both toolkits dispatch with no code per tool.
 */
import type { JsonSchema } from "./json-schema.ts";
import type { Manifest, ManifestOperation } from "./manifest.ts";

export const pythonToolSpecsTarget = "sdks/python/src/cairn/tool_specs.json";
export const typescriptToolSpecsTarget = "sdks/js/src/generated/tool-specs.ts";

/** How a strict-mode argument travels when JSON Schema's strict subset cannot say the real shape. */
export type ArgumentEncoding = "entries" | "json";

export interface ToolSpec {
  /** The MCP tool's name, which the toolkits use. */
  name: string;
  /** The operation `POST /v1/tools/{operation}` runs. */
  operation: string;
  /** The MCP profile it belongs to (transports/mcp/profiles.ts): "memory" or "sandbox". */
  profile: "memory" | "sandbox";
  title: string;
  description: string;
  /** The arguments as MCP's tools/list shows them (Anthropic, LangChain, Google ADK, the AI SDK). */
  input_schema: JsonSchema;
  /** The same arguments under OpenAI's strict rules (Chat Completions and Responses, `strict: true`). */
  strict_input_schema: JsonSchema;
  /** Argument → the operation field it fills, where the names differ (recall's `query` → `q`). */
  rename: Record<string, string>;
  /** Values the tool sends for arguments left out or null, as the MCP tool does. */
  defaults: Record<string, unknown>;
  /** Arguments whose null is a value of its own; any other null means "left out". */
  nullable: string[];
  /** Arguments the strict schema encodes: "entries" (a map as `[{key, value}]`), "json" (JSON text). */
  encoded: Record<string, ArgumentEncoding>;
  /** For an operation that answers nothing: the result is `{"status": status, "id": <id_argument>}`. */
  done: { status: string; id_argument: string } | null;
  /** Arguments counting seconds the server waits (exec's timeout), with their default: the HTTP call waits as long, plus a margin. */
  waits: Record<string, number>;
}

/** Keywords OpenAI's strict mode accepts beside type, properties, items, enum, anyOf and description. */
const strictKeywords = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "description",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

const waitArguments = new Set(["timeout", "timeout_seconds", "wait_seconds"]);

/** What strict mode drops from a schema, said in words in its description instead. */
function droppedInWords(schema: JsonSchema): string[] {
  const words: string[] = [];
  const { minLength, maxLength } = schema as { minLength?: number; maxLength?: number };
  if (minLength !== undefined && maxLength !== undefined)
    words.push(`${minLength} to ${maxLength} characters`);
  else if (maxLength !== undefined) words.push(`at most ${maxLength} characters`);
  else if (minLength !== undefined && minLength > 1) words.push(`at least ${minLength} characters`);
  else if (minLength === 1) words.push("not empty");
  if (schema.default !== undefined) words.push(`default ${JSON.stringify(schema.default)}`);
  return words;
}

function describe(description: string | undefined, words: string[]): string | undefined {
  if (words.length === 0) return description;
  const said = words.join("; ");
  return description ? `${description} (${said})` : said[0].toUpperCase() + said.slice(1);
}

/** One schema under strict rules: closed objects with every property required, unsupported keywords in words. */
function strictSchema(schema: JsonSchema, where: string): JsonSchema {
  if (schema.type === "object") {
    if (!schema.properties) throw new Error(`${where}: a free-form object has no strict form`);
    return strictObject(schema, where);
  }
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!strictKeywords.has(keyword)) continue;
    if (keyword === "items") result.items = strictSchema(value as JsonSchema, `${where}[]`);
    else if (keyword === "anyOf")
      result.anyOf = (value as JsonSchema[]).map((part) => strictSchema(part, where));
    else result[keyword] = value;
  }
  const description = describe(schema.description, droppedInWords(schema));
  if (description !== undefined) result.description = description;
  return result;
}

/** A free-form argument in strict form: a map as a list of entries, anything else as JSON text. */
function encodedArgument(
  schema: JsonSchema,
  where: string,
): { schema: JsonSchema; encoding: ArgumentEncoding } {
  const values = schema.additionalProperties;
  if (typeof values === "object" && values.type === "string") {
    const keys = schema.propertyNames ?? { type: "string" };
    const entry: JsonSchema = {
      type: "object",
      properties: { key: { ...keys, type: "string" }, value: values },
      required: ["key", "value"],
    };
    const list: JsonSchema = { type: "array", items: entry, description: schema.description };
    return { schema: strictSchema(list, where), encoding: "entries" };
  }
  const text: JsonSchema = {
    type: "string",
    description: describe(schema.description, ["a JSON object, as text", ...droppedInWords(schema)]),
  };
  return { schema: text, encoding: "json" };
}

function strictObject(
  schema: JsonSchema,
  where: string,
  encoded: Record<string, ArgumentEncoding> = {},
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    let strict: JsonSchema;
    if (property.type === "object" && !property.properties) {
      if (where.includes(".")) throw new Error(`${where}.${name}: only a top-level argument can be encoded`);
      const { schema: encodedSchema, encoding } = encodedArgument(property, `${where}.${name}`);
      strict = encodedSchema;
      encoded[name] = encoding;
    } else {
      strict = strictSchema(property, `${where}.${name}`);
    }
    // An optional argument is required with null as "left out", as strict mode asks.
    if (!required.has(name)) {
      const { description, ...rest } = strict;
      strict = { ...(description !== undefined && { description }), anyOf: [rest, { type: "null" }] };
    }
    properties[name] = strict;
  }
  return {
    type: "object",
    ...(schema.description !== undefined && { description: schema.description }),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** Whether a field's schema takes null as a value (else a null argument means "left out", as MCP reads it). */
function takesNull(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  return schema.anyOf?.some(takesNull) ?? false;
}

function toolSpec(operation: ManifestOperation): ToolSpec | null {
  const mcp = operation.mcp;
  if (!mcp) return null;
  const argumentOf = (field: string) => mcp.rename[field] ?? field;
  const fieldOf = Object.fromEntries(
    Object.entries(mcp.rename).map(([field, argument]) => [argument, field]),
  );
  const argumentNames = Object.keys(mcp.input.properties ?? {});
  const encoded: Record<string, ArgumentEncoding> = {};
  const strict = strictObject(mcp.input, mcp.name, encoded);
  const fieldSchema = (argument: string) => operation.input.properties?.[fieldOf[argument] ?? argument];
  const waits: Record<string, number> = {};
  for (const argument of argumentNames.filter((name) => waitArguments.has(name))) {
    const fallback =
      mcp.defaults[fieldOf[argument] ?? argument] ?? operation.defaults[fieldOf[argument] ?? argument];
    waits[argument] = typeof fallback === "number" ? fallback : 0;
  }
  return {
    name: mcp.name,
    operation: operation.name,
    profile: operation.group === "memory" ? "memory" : "sandbox",
    title: operation.title,
    description: operation.description,
    input_schema: mcp.input,
    strict_input_schema: strict,
    rename: Object.fromEntries(Object.entries(mcp.rename).map(([field, argument]) => [argument, field])),
    defaults: Object.fromEntries(
      Object.entries(mcp.defaults).map(([field, value]) => [argumentOf(field), value]),
    ),
    nullable: argumentNames.filter((argument) => takesNull(fieldSchema(argument))),
    encoded,
    done: mcp.done && { status: mcp.done.status, id_argument: argumentOf(mcp.done.id_field) },
    waits,
  };
}

/** Every MCP tool of the manifest as a toolkit spec, in the manifest's order. */
export function toolSpecs(manifest: Manifest): ToolSpec[] {
  return manifest.operations.flatMap((operation) => toolSpec(operation) ?? []);
}

const header = "Generated by `npm run contract` from sdks/contract/operations.json; do not edit.";

export function renderPythonToolSpecs(manifest: Manifest): string {
  return `${JSON.stringify({ $comment: header, tools: toolSpecs(manifest) }, null, 2)}\n`;
}

/** The JavaScript SDK's types of a spec, written beside the data (its files import nothing from outside their folder). */
const typescriptDeclarations = `/** A JSON Schema as the specs hold it. */
export type JsonSchema = { [keyword: string]: unknown };

export interface ToolSpec {
  /** The MCP tool's name. */
  name: string;
  /** The operation \`POST /v1/tools/{operation}\` runs. */
  operation: string;
  profile: "memory" | "sandbox";
  title: string;
  description: string;
  /** The arguments as MCP's tools/list shows them. */
  input_schema: JsonSchema;
  /** The same arguments under OpenAI's strict rules. */
  strict_input_schema: JsonSchema;
  /** Argument → operation field, where they differ. */
  rename: Record<string, string>;
  /** Values sent for arguments left out (or null), as the MCP tool does. */
  defaults: Record<string, unknown>;
  /** Arguments whose null is a value; any other null means "left out". */
  nullable: string[];
  /** "entries": a map sent as \`[{key, value}]\`; "json": an object sent as JSON text (strict mode). */
  encoded: Record<string, "entries" | "json">;
  /** For an operation that answers nothing: the result \`{"status", "id": <id_argument>}\`. */
  done: { status: string; id_argument: string } | null;
  /** Arguments counting seconds the server waits, with their defaults. */
  waits: Record<string, number>;
}`;

export function renderTypescriptToolSpecs(manifest: Manifest): string {
  return [
    `// ${header}`,
    "",
    typescriptDeclarations,
    "",
    "/** Every MCP tool as the agent toolkits offer it (scripts/contract/toolkits.ts). */",
    `export const toolSpecs: readonly ToolSpec[] = ${JSON.stringify(toolSpecs(manifest), null, 2)};`,
    "",
  ].join("\n");
}
