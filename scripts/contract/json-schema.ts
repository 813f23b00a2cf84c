/** The JSON Schema subset zod writes for Cairn's operations, and small readers of it. */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  [keyword: string]: unknown;
}

/** The schema without its `null` alternative, and whether it had one. */
export function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    const types = schema.type.filter((type) => type !== "null");
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  if (schema.anyOf) {
    const rest = schema.anyOf.filter((variant) => variant.type !== "null");
    if (rest.length < schema.anyOf.length) {
      const { anyOf: _all, ...outer } = schema;
      return {
        schema: rest.length === 1 ? { ...outer, ...rest[0] } : { ...outer, anyOf: rest },
        nullable: true,
      };
    }
  }
  return { schema, nullable: false };
}

/** A JSON object with named fields (not a map). */
export const isObject = (schema: JsonSchema) => schema.type === "object" && schema.properties !== undefined;

/** A JSON object used as a map: every key a string, every value of one schema. */
export const isMap = (schema: JsonSchema) =>
  schema.type === "object" && schema.properties === undefined && schema.additionalProperties !== undefined;

/** The literal values of an `enum` or `const`, or null. */
export function literalValues(schema: JsonSchema): Array<string | number | boolean> | null {
  if (Array.isArray(schema.enum)) return schema.enum as Array<string | number | boolean>;
  if (schema.const !== undefined) return [schema.const as string | number | boolean];
  return null;
}

/** The schema's JSON without what does not change its type: descriptions, defaults and bounds. */
export function shapeKey(schema: unknown): string {
  const ignored = new Set([
    "description",
    "default",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "pattern",
    "additionalProperties",
  ]);
  return JSON.stringify(schema, (key, value) =>
    ignored.has(key) && !(key === "additionalProperties" && typeof value === "object") ? undefined : value,
  );
}

/** `memory_relations` → `MemoryRelations`; `lsp_id` → `LspId`. */
export const pascalCase = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join("");
