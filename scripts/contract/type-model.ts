/**
 * The manifest's schemas as named types, for the languages whose SDKs declare them (Python, Go,
 * Rust): every object an operation answers, and the input objects a language's table names. An
 * object met in several places (a memory in recall, profile and list) is declared once; its name
 * comes from the language's table (type-names.ts), else from where it was first met. Two shapes
 * given one name are merged: the same fields, their values' choices joined (`"opened"` and
 * `"stopped"` are one status).
 */
import type { JsonSchema } from "./json-schema.ts";
import { isMap, isObject, literalValues, pascalCase, shapeKey, withoutNull } from "./json-schema.ts";
import type { Manifest } from "./manifest.ts";
import {
  type Declaration,
  dependencyOrder,
  mergeObjects,
  type ObjectDeclaration,
  type TypeModel,
  type TypeName,
  type TypeNode,
} from "./type-declarations.ts";

export type * from "./type-declarations.ts";
export { fieldOverride, ownFields } from "./type-declarations.ts";

interface Occurrence {
  at: string;
  schema: JsonSchema;
  input: boolean;
}

/** The manifest's types under the given names. */
export function buildTypeModel(manifest: Manifest, names: readonly TypeName[]): TypeModel {
  const byLocation = new Map(names.map((entry) => [entry.at, entry]));
  const objects: Occurrence[] = [];
  const aliases: Occurrence[] = [];
  const used = new Set<string>();

  // A handwritten type names its shape wherever it is met (set_allowed_commands answers what
  // get_allowed_commands does).
  const handwrittenShapes = new Map<string, string>();
  const handwrittenAt = new Map<string, string>();
  function find(raw: JsonSchema, at: string) {
    const named = byLocation.get(at);
    if (named?.handwritten) handwrittenShapes.set(shapeKey(raw), named.name);
    const { schema } = withoutNull(raw);
    for (const [field, property] of Object.entries(schema.properties ?? {})) find(property, `${at}.${field}`);
    if (schema.items) find(schema.items, `${at}[]`);
    if (typeof schema.additionalProperties === "object") find(schema.additionalProperties, `${at}{}`);
    schema.anyOf?.forEach((variant, index) => {
      find(variant, `${at}|${index}`);
    });
  }
  for (const operation of manifest.operations) {
    find(operation.output, `${operation.name}.output`);
    find(operation.input, `${operation.name}.input`);
  }

  function walk(raw: JsonSchema, at: string, emit: boolean, input: boolean) {
    const named = byLocation.get(at);
    if (named) used.add(at);
    const emitting = emit || named !== undefined;
    const handwritten = named?.handwritten
      ? named.name
      : emitting
        ? handwrittenShapes.get(shapeKey(raw))
        : undefined;
    if (handwritten) {
      handwrittenAt.set(at, handwritten);
      return;
    }
    const { schema } = withoutNull(raw);
    if (named && !isObject(schema) && emitting) aliases.push({ at, schema, input });
    if (isObject(schema)) {
      if (emitting) objects.push({ at, schema, input });
      for (const [field, property] of Object.entries(schema.properties ?? {}))
        walk(property, `${at}.${field}`, emitting, input);
    } else if (schema.type === "array" && schema.items) {
      walk(schema.items, `${at}[]`, emitting, input);
    } else if (isMap(schema) && typeof schema.additionalProperties === "object") {
      walk(schema.additionalProperties, `${at}{}`, emitting, input);
    } else if (schema.anyOf) {
      schema.anyOf.forEach((variant, index) => {
        walk(variant, `${at}|${index}`, emitting, input);
      });
    }
  }
  for (const operation of manifest.operations) {
    walk(operation.output, `${operation.name}.output`, true, false);
    walk(operation.input, `${operation.name}.input`, false, true);
  }
  const unused = names.filter((entry) => !used.has(entry.at)).map((entry) => entry.at);
  if (unused.length > 0)
    throw new Error(`type names for places the manifest does not have: ${unused.join(", ")}`);

  // One group per shape; its name from the table, else from where it was first met.
  const groups = new Map<string, { name: string; occurrences: Occurrence[] }>();
  for (const occurrence of objects) {
    const key = `${occurrence.input}:${shapeKey(occurrence.schema)}`;
    const group = groups.get(key) ?? { name: "", occurrences: [] };
    group.occurrences.push(occurrence);
    groups.set(key, group);
  }
  const nameAt = new Map<string, string>();
  for (const group of groups.values()) {
    const tableNames = [...new Set(group.occurrences.flatMap(({ at }) => byLocation.get(at)?.name ?? []))];
    if (tableNames.length > 1) throw new Error(`one shape, several names: ${tableNames.join(", ")}`);
    group.name = tableNames[0] ?? pascalCase(group.occurrences[0].at.replace(/\|\d+/g, ""));
    for (const { at } of group.occurrences) nameAt.set(at, group.name);
  }
  for (const { at } of aliases) nameAt.set(at, byLocation.get(at)?.name as string);
  for (const [at, name] of handwrittenAt) nameAt.set(at, name);
  // A named enum names every list of the same choices.
  const enumNames = new Map<string, string>();
  for (const alias of aliases) {
    const values = literalValues(alias.schema);
    if (values) enumNames.set(JSON.stringify(values), nameAt.get(alias.at) as string);
  }

  function typeOf(raw: JsonSchema, at: string): TypeNode {
    const { schema, nullable } = withoutNull(raw);
    const inner = innerType(schema, at);
    return nullable ? { kind: "nullable", inner } : inner;
  }
  function innerType(schema: JsonSchema, at: string): TypeNode {
    const name = nameAt.get(at);
    if (name) return { kind: "ref", name };
    const values = literalValues(schema);
    if (values) {
      const named = enumNames.get(JSON.stringify(values));
      return named ? { kind: "ref", name: named } : { kind: "literal", values };
    }
    if (schema.anyOf) {
      return {
        kind: "union",
        options: schema.anyOf.map((variant, index) => typeOf(variant, `${at}|${index}`)),
      };
    }
    if (schema.type === "array") return { kind: "array", items: typeOf(schema.items ?? {}, `${at}[]`) };
    if (isMap(schema)) {
      const values = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
      return { kind: "map", values: typeOf(values, `${at}{}`) };
    }
    if (isObject(schema)) {
      const required = new Set(schema.required ?? []);
      return {
        kind: "inline",
        fields: Object.entries(schema.properties ?? {}).map(([field, property]) => ({
          name: field,
          type: typeOf(property, `${at}.${field}`),
          required: required.has(field),
          ...(property.description && { description: property.description }),
          locations: [`${at}.${field}`],
        })),
      };
    }
    switch (schema.type) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
      case "null":
        return { kind: schema.type };
      case "object":
        return { kind: "map", values: { kind: "unknown" } };
      default:
        return { kind: "unknown" };
    }
  }

  const declarations = new Map<string, Declaration>();
  for (const group of groups.values()) {
    const entry = group.occurrences.map(({ at }) => byLocation.get(at)).find(Boolean);
    const declaration = objectDeclaration(group.name, group.occurrences, typeOf, entry);
    const earlier = declarations.get(group.name);
    declarations.set(
      group.name,
      earlier ? mergeObjects(earlier as ObjectDeclaration, declaration) : declaration,
    );
  }
  for (const alias of aliases) {
    const name = nameAt.get(alias.at) as string;
    if (declarations.has(name)) continue;
    const entry = byLocation.get(alias.at);
    declarations.set(name, {
      kind: "alias",
      name,
      ...(entry?.doc && { doc: entry.doc }),
      locations: [alias.at],
      type: innerTypeOfAlias(alias, typeOf),
    });
  }
  return {
    declarations: dependencyOrder([...declarations.values()]),
    handwritten: [...new Set(names.filter((entry) => entry.handwritten).map((entry) => entry.name))],
    typeOf,
  };
}

/** An alias's own type (not a reference to itself). */
function innerTypeOfAlias(alias: Occurrence, typeOf: (schema: JsonSchema, at: string) => TypeNode): TypeNode {
  const values = literalValues(alias.schema);
  if (values) return { kind: "literal", values };
  if (alias.schema.anyOf)
    return {
      kind: "union",
      options: alias.schema.anyOf.map((variant, index) => typeOf(variant, `${alias.at}|${index}`)),
    };
  throw new Error(`${alias.at}: only an enum or a union can be given a name`);
}

function objectDeclaration(
  name: string,
  occurrences: Occurrence[],
  typeOf: (schema: JsonSchema, at: string) => TypeNode,
  entry: TypeName | undefined,
): ObjectDeclaration {
  const [first] = occurrences;
  const required = new Set(first.schema.required ?? []);
  const fields = Object.entries(first.schema.properties ?? {}).map(([field, property]) => ({
    name: field,
    type: typeOf(property, `${first.at}.${field}`),
    required: required.has(field),
    ...(property.description && { description: property.description }),
    locations: occurrences.map(({ at }) => `${at}.${field}`),
  }));
  return {
    kind: "object",
    name,
    ...(entry?.doc && { doc: entry.doc }),
    locations: occurrences.map(({ at }) => at),
    fields,
    ...(entry?.embed && { embed: entry.embed }),
    input: first.input,
  };
}
