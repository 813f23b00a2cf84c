/**
 * The declarations of type-model.ts, and what the renderers and the model share: merging two
 * shapes given one name, the order declarations are written in, the fields a declaration adds to
 * the one it embeds, and overrides keyed by place.
 */
import type { JsonSchema } from "./json-schema.ts";

export type Literal = string | number | boolean;

export type TypeNode =
  | { kind: "string" | "integer" | "number" | "boolean" | "null" | "unknown" }
  | { kind: "literal"; values: Literal[] }
  | { kind: "array"; items: TypeNode }
  | { kind: "map"; values: TypeNode }
  | { kind: "nullable"; inner: TypeNode }
  | { kind: "union"; options: TypeNode[] }
  /** A declared type: an object, an alias (a named enum or union) or a handwritten one. */
  | { kind: "ref"; name: string }
  /** An object no table names, outside what is declared (an operation's input); TypeScript writes it in place. */
  | { kind: "inline"; fields: FieldDeclaration[] };

export interface FieldDeclaration {
  name: string;
  type: TypeNode;
  required: boolean;
  description?: string;
  /** Every place the field is met: `<object location>.<field>`. */
  locations: string[];
}

export interface ObjectDeclaration {
  kind: "object";
  name: string;
  doc?: string;
  locations: string[];
  fields: FieldDeclaration[];
  /** A declared object whose fields this one has too, kept as one unit (Go embedding, Rust flatten). */
  embed?: Embed;
  /** Met in an operation's input (sent by the SDK) rather than its output. */
  input: boolean;
}

export interface AliasDeclaration {
  kind: "alias";
  name: string;
  doc?: string;
  locations: string[];
  type: TypeNode;
}

export type Declaration = ObjectDeclaration | AliasDeclaration;

/**
 * A declared object whose fields a type has too: a base class (Python), an intersection
 * (TypeScript), an embedded struct (Go), a flattened field named `field` (Rust).
 */
export interface Embed {
  type: string;
  field?: string;
}

/** One entry of a language's table of names. */
export interface TypeName {
  /**
   * Where the type is met: `<operation>.output` or `<operation>.input`, then `.<field>` for a
   * field, `[]` for a list's items, `{}` for a map's values, `|<n>` for a union's n-th choice.
   */
  at: string;
  name: string;
  doc?: string;
  embed?: Embed;
  /** Declared by hand in the SDK (a type with its own JSON methods): referred to, not generated. */
  handwritten?: boolean;
}

export interface TypeModel {
  /** In an order where every type comes after the types it refers to. */
  declarations: Declaration[];
  /** The names of handwritten types that generated ones refer to. */
  handwritten: string[];
  /** The type of a schema met at a place, in terms of the declarations. */
  typeOf(schema: JsonSchema, at: string): TypeNode;
}

export function sameType(first: TypeNode, second: TypeNode) {
  return JSON.stringify(first) === JSON.stringify(second);
}

/** The type that holds both: choices joined, null admitted when either admits it. */
function mergeTypes(first: TypeNode, second: TypeNode, where: string): TypeNode {
  if (sameType(first, second)) return first;
  if (first.kind === "literal" && second.kind === "literal")
    return { kind: "literal", values: [...new Set([...first.values, ...second.values])] };
  if (first.kind === "null") return second.kind === "nullable" ? second : { kind: "nullable", inner: second };
  if (second.kind === "null") return first.kind === "nullable" ? first : { kind: "nullable", inner: first };
  if (first.kind === "nullable" || second.kind === "nullable") {
    const unwrap = (node: TypeNode) => (node.kind === "nullable" ? node.inner : node);
    return { kind: "nullable", inner: mergeTypes(unwrap(first), unwrap(second), where) };
  }
  throw new Error(`${where}: two types under one name (${JSON.stringify(first)}, ${JSON.stringify(second)})`);
}

export function mergeObjects(first: ObjectDeclaration, second: ObjectDeclaration): ObjectDeclaration {
  const names = (declaration: ObjectDeclaration) => declaration.fields.map((field) => field.name).join(",");
  if (names(first) !== names(second))
    throw new Error(
      `${first.name} names two shapes with different fields: ${names(first)} / ${names(second)}`,
    );
  return {
    ...first,
    locations: [...first.locations, ...second.locations],
    fields: first.fields.map((field, index) => {
      const other = second.fields[index];
      return {
        ...field,
        type: mergeTypes(field.type, other.type, `${first.name}.${field.name}`),
        required: field.required && other.required,
        locations: [...field.locations, ...other.locations],
      };
    }),
  };
}

function references(node: TypeNode): string[] {
  switch (node.kind) {
    case "ref":
      return [node.name];
    case "array":
      return references(node.items);
    case "map":
      return references(node.values);
    case "nullable":
      return references(node.inner);
    case "union":
      return node.options.flatMap(references);
    case "inline":
      return node.fields.flatMap((field) => references(field.type));
    default:
      return [];
  }
}

/** Declarations with each one's references first, otherwise in the order they were met. */
export function dependencyOrder(declarations: Declaration[]): Declaration[] {
  const byName = new Map(declarations.map((declaration) => [declaration.name, declaration]));
  const ordered: Declaration[] = [];
  const placed = new Set<string>();
  const place = (declaration: Declaration) => {
    if (placed.has(declaration.name)) return;
    placed.add(declaration.name);
    const refs =
      declaration.kind === "object"
        ? [
            ...(declaration.embed ? [declaration.embed.type] : []),
            ...declaration.fields.flatMap((field) => references(field.type)),
          ]
        : references(declaration.type);
    for (const name of refs) {
      const target = byName.get(name);
      if (target) place(target);
    }
    ordered.push(declaration);
  };
  for (const declaration of declarations) place(declaration);
  return ordered;
}

/**
 * The fields a declaration adds to the one it embeds (all of them when it embeds none). The
 * embedded declaration's fields must all be there, with the same types.
 */
export function ownFields(declaration: ObjectDeclaration, model: TypeModel): FieldDeclaration[] {
  if (!declaration.embed) return declaration.fields;
  const embedded = model.declarations.find((candidate) => candidate.name === declaration.embed?.type);
  if (embedded?.kind !== "object")
    throw new Error(`${declaration.name} embeds ${declaration.embed.type}, not an object`);
  for (const field of embedded.fields) {
    const own = declaration.fields.find((candidate) => candidate.name === field.name);
    if (!own || !sameType(own.type, field.type) || own.required !== field.required)
      throw new Error(`${declaration.name} embeds ${embedded.name} but its ${field.name} differs`);
  }
  const inherited = new Set(embedded.fields.map((field) => field.name));
  return declaration.fields.filter((field) => !inherited.has(field.name));
}

/** Every place a field is met, for per-language overrides keyed by place. */
export function fieldOverride<Value>(
  table: Readonly<Record<string, Value>>,
  field: FieldDeclaration,
): Value | undefined {
  for (const location of field.locations) if (location in table) return table[location];
  return undefined;
}
