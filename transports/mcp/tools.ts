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
  /** What tools/list shows. */
  definition: {
    name: string;
    title: string;
    description: string;
    inputSchema: { type: "object"; [key: string]: unknown };
    outputSchema: { type: "object"; [key: string]: unknown };
    annotations: {
      readOnlyHint?: boolean;
      destructiveHint?: boolean;
      idempotentHint?: boolean;
      openWorldHint?: boolean;
    };
  };
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
  return JSON.parse(JSON.stringify(rest), (key, value) =>
    (key === "minimum" && value === -safeIntegerBound) || (key === "maximum" && value === safeIntegerBound)
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

/** Any output schema as an object schema, by the rule above. A failure's `error` is admitted too. */
function resultSchema(operation: AnyTool, binding: McpBinding): McpTool["definition"]["outputSchema"] {
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
  const error = { type: "object" };
  if (!output.anyOf) {
    const only = asObject(output);
    // An operation with its own `error` field (grep) keeps it, and admits the failure's too.
    const own = only.properties?.error;
    return {
      ...only,
      type: "object",
      properties: { ...only.properties, error: own ? { anyOf: [own, error] } : error },
    };
  }
  return {
    type: "object",
    anyOf: [...output.anyOf.map(asObject), { type: "object", properties: { error } }],
  };
}

/** MCP's defaults are readOnly false, destructive true, idempotent false, openWorld true: send only the others. */
function hints(operation: AnyTool): McpTool["definition"]["annotations"] {
  const { readOnly, destructive, idempotent, openWorld } = operation.annotations;
  return {
    ...(readOnly && { readOnlyHint: true }),
    ...(!readOnly && !destructive && { destructiveHint: false }),
    ...(!readOnly && idempotent && { idempotentHint: true }),
    ...(!openWorld && { openWorldHint: false }),
  };
}

function createMcpTool(operation: AnyTool, binding: McpBinding): McpTool {
  const name = binding.name ?? operation.name;
  const renamed = new Map(Object.entries(binding.rename ?? {}) as Array<[string, string]>);
  const fields = Object.keys(operation.input.shape).filter((field) => !binding.omit?.includes(field));
  const { $schema: _dialect, ...inputSchema } = jsonSchema(argumentSchema(operation, binding), "input");
  const argumentNames = new Set(fields.map((field) => renamed.get(field) ?? field));
  return {
    name,
    operation,
    definition: {
      name,
      title: operation.title,
      description: operation.description,
      inputSchema: { ...inputSchema, type: "object", additionalProperties: false },
      outputSchema: resultSchema(operation, binding),
      annotations: hints(operation),
    },
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
