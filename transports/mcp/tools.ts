/**
 * The registry's MCP operations as MCP tools. Nothing here names an operation: each tool's name,
 * argument names, defaults and result shape come from the operation's `mcp` binding, its JSON
 * Schemas from the operation's own zod schemas. A new operation with a binding is a new tool.
 *
 * One rule for results: MCP structured content is always a JSON object. An object output is sent
 * as it is; an array output is sent as `{"items": [...]}`; an operation that answers nothing (REST
 * 204) sends `{"status": <its binding's word>, "id": <the id it acted on>}`. A failed call sends
 * the same `{"error": {...}}` envelope REST does, so each output schema also admits that.
 */
import { z } from "zod";
import { type AnyTool, allOperations, type McpBinding, ServiceError } from "../../core/index.ts";

export interface McpTool {
  /** The tool's name (the operation's, unless the binding renames it). */
  name: string;
  operation: AnyTool;
  /**
   * For a display (`?results=structured` lists it): agents have the name, so the default list
   * leaves it out to fit 20,000 characters (docs/mcp.md#context-cost).
   */
  title: string;
  /** What tools/list shows. */
  definition: {
    name: string;
    description: string;
    inputSchema: { type: "object"; [key: string]: unknown };
    annotations?: {
      readOnlyHint?: boolean;
      destructiveHint?: boolean;
      idempotentHint?: boolean;
      openWorldHint?: boolean;
    };
  };
  /**
   * The result's outline, listed only to a connection that reads `structuredContent` alone
   * (`results=structured`, create-mcp-server.ts): the others read the result as text.
   */
  outputSchema: { type: "object"; [key: string]: unknown };
  /** The operation's input from the tool's arguments: names mapped back, defaults filled, omitted fields dropped. */
  toInput(argumentsValue: Record<string, unknown> | undefined): Record<string, unknown>;
  /** The tool's structured result from the operation's output. */
  toResult(output: unknown, input: Record<string, unknown>): Record<string, unknown>;
  /** An operation field's name as the tool calls it (for error locations). */
  argumentName(field: string): string;
}

type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
  anyOf?: JsonSchema[];
};

const safeIntegerBound = Number.MAX_SAFE_INTEGER;

/**
 * A zod schema as JSON Schema, without what only adds characters to every tools/list: the
 * dialect, and the ±2^53 bounds zod writes on every integer.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  // Also what says nothing: a record's string keys (JSON keys are strings) and its values of any type.
  const empty = (value: unknown) =>
    typeof value === "object" && value !== null && Object.keys(value).length === 0;
  return JSON.parse(JSON.stringify(rest), (key, value) =>
    (key === "minimum" && value === -safeIntegerBound) ||
    (key === "maximum" && value === safeIntegerBound) ||
    (key === "propertyNames" && JSON.stringify(value) === '{"type":"string"}') ||
    (key === "additionalProperties" && empty(value))
      ? undefined
      : value,
  );
}

function isNullByDefault(schema: z.ZodType): schema is z.ZodDefault {
  return (
    schema instanceof z.ZodDefault &&
    schema.def.defaultValue === null &&
    schema.unwrap() instanceof z.ZodNullable
  );
}

function isOptionalNullable(schema: z.ZodType): schema is z.ZodOptional {
  return schema instanceof z.ZodOptional && schema.unwrap() instanceof z.ZodNullable;
}

/** The tool's argument schema: the operation's fields, renamed, with the binding's defaults, minus omitted ones. */
/**
 * Arguments the tool does not take, refused by name (a misspelling dropped in silence would run
 * the call without it). `gpu_count`, which the counterpart's create_sandbox takes, says why.
 */
function unknownArguments(tool: string, unknown: readonly string[], known: readonly string[]): ServiceError {
  return new ServiceError("validation_error", "Invalid request", {
    details: unknown.map((argument) => ({
      type: "unknown_argument",
      loc: [argument],
      msg:
        argument === "gpu_count"
          ? "GPUs are not offered: Cairn's sandboxes have CPUs only"
          : `${tool} takes no argument ${JSON.stringify(argument)}; it takes ${known.join(", ") || "none"}`,
    })),
  });
}

/** Whether the operation's field takes null as a value of its own (else null means "omitted"). */
function acceptsNull(operation: AnyTool, field: string): boolean {
  const schema = (operation.input.shape as Record<string, z.ZodType | undefined>)[field];
  return schema?.safeParse(null).success ?? false;
}

function argumentSchema(operation: AnyTool, binding: McpBinding): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [field, fieldSchema] of Object.entries(operation.input.shape as Record<string, z.ZodType>)) {
    if (binding.omit?.includes(field)) continue;
    let schema = fieldSchema;
    const fallback = binding.defaults?.[field];
    if (fallback !== undefined) {
      const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
      schema = inner.default(fallback as never);
    } else if (isNullByDefault(schema) || isOptionalNullable(schema)) {
      // Leaving it out is how a model says "none": the schema need not spell out null as well.
      schema = ((schema.unwrap() as z.ZodNullable).unwrap() as z.ZodType).optional();
    }
    if (schema !== fieldSchema && fieldSchema.description) schema = schema.describe(fieldSchema.description);
    shape[binding.rename?.[field] ?? field] = schema;
  }
  return z.object(shape);
}

/** A field's JSON type(s) alone, e.g. `{"type": ["string", "null"]}`. */
function typeOnly(schema: JsonSchema): JsonSchema {
  const types = new Set<string>();
  const collect = (part: JsonSchema) => {
    if (part.anyOf) for (const option of part.anyOf) collect(option);
    else if (part.type) for (const type of [part.type].flat()) types.add(type);
  };
  collect(schema);
  const list = [...types];
  if (list.length === 0) return {};
  return { type: list.length === 1 ? list[0] : list };
}

/**
 * An output schema as tools/list shows it: the result's fields by name and JSON type, nested
 * values by type alone. The result itself is JSON the model reads directly; spelling out every
 * nested field, enum and bound of every tool would crowd its context instead.
 */
function outline(schema: JsonSchema, alternatives = 1): JsonSchema {
  if (schema.anyOf?.some((part) => part.type === "object" || part.type === "array")) {
    return { anyOf: schema.anyOf.map((part) => outline(part, schema.anyOf?.length)) };
  }
  if (schema.type === "object") {
    const properties = Object.entries(schema.properties ?? {}).map(([name, property]) => [
      name,
      typeOnly(property),
    ]);
    return { type: "object", properties: Object.fromEntries(properties) };
  }
  if (schema.type === "array" && schema.items) {
    // Beside an object alternative of the same shape (create_sandbox with count), items by type alone.
    return { type: "array", items: alternatives > 1 ? typeOnly(schema.items) : outline(schema.items) };
  }
  return typeOnly(schema);
}

/**
 * Any output schema as an object schema, by the rule above. A failure's `{"error": {…}}` fits
 * every outline as it is (no field is required, none is closed), so only an operation with an
 * `error` field of its own (grep) names the failure's beside it.
 */
function resultSchema(operation: AnyTool, binding: McpBinding): McpTool["outputSchema"] {
  const asObject = (part: JsonSchema): JsonSchema => {
    if (part.type === "object") return part;
    if (part.type === "array") return { type: "object", properties: { items: part } };
    if (part.type === "null" && binding.done) {
      return {
        type: "object",
        properties: { status: { type: "string", const: binding.done.status }, id: { type: "string" } },
      };
    }
    throw new Error(
      `${operation.name}: an MCP result must be an object, an array or a declared "done" answer`,
    );
  };
  const output = outline(jsonSchema(operation.output, "output"));
  if (output.anyOf) return { type: "object", anyOf: output.anyOf.map(asObject) };
  const only = asObject(output);
  const own = only.properties?.error;
  if (!own) return { ...only, type: "object" };
  return {
    ...only,
    type: "object",
    properties: { ...only.properties, error: { anyOf: [own, { type: "object" }] } },
  };
}

/**
 * MCP's defaults are readOnly false, destructive true, idempotent false: send only the others, the
 * hints a client acts on (asking before a call). openWorld is left to its default (true, the
 * careful reading): no client acts on it, and it cost every tool 22 characters.
 */
function hints(operation: AnyTool): NonNullable<McpTool["definition"]["annotations"]> {
  const { readOnly, destructive, idempotent } = operation.annotations;
  return {
    ...(readOnly && { readOnlyHint: true }),
    ...(!readOnly && !destructive && { destructiveHint: false }),
    ...(!readOnly && idempotent && { idempotentHint: true }),
  };
}

/** An argument described as another tool's answer: "Sandbox id, from create_sandbox". */
const givenByAnotherTool = /\bfrom [a-z]+(_[a-z]+)+$/;

/**
 * Less of what a model does not need to call, to keep tools/list small (REST and `--help` keep
 * it all). A required id that another tool's answer gives is a plain string: the model passes what
 * it was given, so its length bounds never guide a call (the server still checks them), and where
 * it comes from is said by that tool and the server's instructions (19 tools take session_id). An
 * argument the tool's description explains (the binding's `saidByTool`) goes without its own.
 */
function terse(schema: JsonSchema, saidByTool: readonly string[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    let listed = property;
    // null with a default means that default: listed as the value alone (exec's timeout).
    const value =
      property.anyOf?.length === 2 ? property.anyOf.find((part) => part.type !== "null") : undefined;
    if (value && property.anyOf?.some((part) => part.type === "null") && property.default != null) {
      const { anyOf: _either, ...rest } = property;
      listed = { ...rest, ...value };
    }
    if (
      schema.required?.includes(name) &&
      listed.type === "string" &&
      givenByAnotherTool.test(String(listed.description))
    ) {
      const { minLength: _minimum, maxLength: _maximum, description: _said, ...rest } = listed;
      listed = rest;
    } else if (saidByTool.includes(name)) {
      const { description: _said, ...rest } = listed;
      listed = rest;
    }
    properties[name] = listed;
  }
  return { ...schema, properties };
}

function createMcpTool(operation: AnyTool, binding: McpBinding): McpTool {
  const name = binding.name ?? operation.name;
  const renamed = new Map(Object.entries(binding.rename ?? {}) as Array<[string, string]>);
  const fields = Object.keys(operation.input.shape).filter((field) => !binding.omit?.includes(field));
  const saidByTool = (binding.saidByTool ?? []).map((field) => renamed.get(field) ?? field);
  const { $schema: _dialect, ...inputSchema } = terse(
    jsonSchema(argumentSchema(operation, binding), "input"),
    saidByTool,
  );
  const argumentNames = new Set(fields.map((field) => renamed.get(field) ?? field));
  return {
    name,
    operation,
    title: operation.title,
    definition: {
      name,
      description: operation.description,
      inputSchema: { ...inputSchema, type: "object", additionalProperties: false },
      ...(Object.keys(hints(operation)).length > 0 && { annotations: hints(operation) }),
    },
    outputSchema: resultSchema(operation, binding),
    toInput(argumentsValue = {}) {
      const unknown = Object.keys(argumentsValue).filter((argument) => !argumentNames.has(argument));
      if (unknown.length > 0) throw unknownArguments(name, unknown, [...argumentNames]);
      const input: Record<string, unknown> = {};
      for (const field of fields) {
        const given = argumentsValue[renamed.get(field) ?? field];
        // null for an optional field that takes no null is how a client says "none": omitted.
        const value = given === null && !acceptsNull(operation, field) ? undefined : given;
        const fallback = binding.defaults?.[field];
        if (value !== undefined) input[field] = value;
        else if (fallback !== undefined) input[field] = fallback;
      }
      return input;
    },
    toResult(raw, input) {
      const output = binding.present ? binding.present(raw) : raw;
      if (Array.isArray(output)) return { items: output };
      if (output === null && binding.done)
        return { status: binding.done.status, id: input[binding.done.idField] };
      return output as Record<string, unknown>;
    },
    argumentName: (field) => renamed.get(field) ?? field,
  };
}

const built = new WeakMap<readonly AnyTool[], readonly McpTool[]>();

/** Every MCP tool of the built-in operations, or of the given ones (a platform's), in their order. */
export function mcpTools(operations: readonly AnyTool[] = allOperations): readonly McpTool[] {
  let tools = built.get(operations);
  if (!tools) {
    tools = operations.flatMap((operation) =>
      operation.mcp ? [createMcpTool(operation, operation.mcp as McpBinding)] : [],
    );
    built.set(operations, tools);
  }
  return tools;
}
