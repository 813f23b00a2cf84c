/**
 * sdks/rust/src/types/generated.rs: serde types of what each route answers and of the import's
 * memories and relations (named as in type-names.ts, flattening where a type extends another),
 * enums for the vocabularies a caller sends, and each operation's scalar defaults as crate
 * constants. Option structs stay handwritten (types/*.rs). Written as rustfmt writes it.
 */

import { pascalCase } from "./json-schema.ts";
import type { Manifest } from "./manifest.ts";
import {
  type AliasDeclaration,
  buildTypeModel,
  type FieldDeclaration,
  fieldOverride,
  type ObjectDeclaration,
  ownFields,
  type TypeModel,
  type TypeNode,
} from "./type-model.ts";
import { rustFieldNames, rustFieldTypes, rustNames } from "./type-names.ts";

export const rustTarget = "sdks/rust/src/types/generated.rs";

function rustType(node: TypeNode, model: TypeModel, scalar?: string): string {
  switch (node.kind) {
    case "string":
      return "String";
    case "integer":
      return scalar ?? "u64";
    case "number":
      return scalar ?? "f64";
    case "boolean":
      return "bool";
    case "literal":
      if (node.values.every((value) => typeof value === "string")) return "String";
      if (node.values.every((value) => Number.isInteger(value))) return scalar ?? "u64";
      return "serde_json::Value";
    case "array":
      return `Vec<${rustType(node.items, model)}>`;
    case "map":
      return node.values.kind === "unknown"
        ? "JsonObject"
        : `BTreeMap<String, ${rustType(node.values, model, scalar)}>`;
    case "nullable":
      return `Option<${rustType(node.inner, model, scalar)}>`;
    case "ref":
      return node.name;
    case "null":
    case "unknown":
    case "union":
      return "serde_json::Value";
    case "inline":
      throw new Error("Rust declares every object it uses");
  }
}

const docLines = (text: string | undefined, indent: string) =>
  text ? text.split("\n").map((line) => `${indent}/// ${line}`) : [];

/** Whether `Default` can be derived for a field of this type. */
function hasDefault(node: TypeNode, model: TypeModel, defaults: Map<string, string>): boolean {
  if (node.kind !== "ref") return true;
  const target = model.declarations.find((declaration) => declaration.name === node.name);
  if (target?.kind === "alias") return defaults.has(target.name);
  return false;
}

function fieldLines(
  field: FieldDeclaration,
  declaration: ObjectDeclaration,
  model: TypeModel,
  imports: Set<string>,
): string[] {
  const name = fieldOverride(rustFieldNames, field) ?? field.name;
  let type = rustType(field.type, model, fieldOverride(rustFieldTypes, field));
  const attributes: string[] = [];
  if (name !== field.name) attributes.push(`rename = "${field.name}"`);
  if (!field.required) {
    if (!type.startsWith("Option<")) type = `Option<${type}>`;
    attributes.push("default", 'skip_serializing_if = "Option::is_none"');
  } else if (!declaration.input && /^(Vec<|BTreeMap<|JsonObject$)/.test(type)) {
    // An absent list or object reads as an empty one.
    attributes.push("default");
  }
  if (type.includes("BTreeMap")) imports.add("std::collections::BTreeMap");
  if (type.includes("JsonObject")) imports.add("super::JsonObject");
  return [
    ...docLines(field.description, "    "),
    ...(attributes.length > 0 ? [`    #[serde(${attributes.join(", ")})]`] : []),
    `    pub ${name}: ${type},`,
  ];
}

function structLines(
  declaration: ObjectDeclaration,
  model: TypeModel,
  defaults: Map<string, string>,
  imports: Set<string>,
): string[] {
  const fields = ownFields(declaration, model);
  const derives = ["Debug", "Clone", "PartialEq"];
  if (
    declaration.input &&
    fields.every((field) => !field.required || hasDefault(field.type, model, defaults))
  )
    derives.push("Default");
  derives.push("Serialize", "Deserialize");
  const { embed } = declaration;
  if (embed && !embed.field)
    throw new Error(`${declaration.name}: Rust flattens ${embed.type} into a named field`);
  const embedded = embed ? ["    #[serde(flatten)]", `    pub ${embed.field}: ${embed.type},`] : [];
  return [
    ...docLines(declaration.doc, ""),
    `#[derive(${derives.join(", ")})]`,
    `pub struct ${declaration.name} {`,
    ...embedded,
    ...fields.flatMap((field) => fieldLines(field, declaration, model, imports)),
    "}",
  ];
}

function enumLines(declaration: AliasDeclaration, defaults: Map<string, string>): string[] {
  if (
    declaration.type.kind !== "literal" ||
    !declaration.type.values.every((value) => typeof value === "string")
  )
    throw new Error(`${declaration.name}: Rust names only enums of strings`);
  const values = declaration.type.values as string[];
  const lowercase = values.every((value) => /^[a-z]+$/.test(value));
  const fallback = defaults.get(declaration.name);
  const derives = ["Debug", "Clone", "Copy", "PartialEq", "Eq", "Hash"];
  if (fallback !== undefined) derives.push("Default");
  derives.push("Serialize", "Deserialize");
  return [
    ...docLines(declaration.doc, ""),
    `#[derive(${derives.join(", ")})]`,
    ...(lowercase ? ['#[serde(rename_all = "lowercase")]'] : []),
    `pub enum ${declaration.name} {`,
    ...values.flatMap((value) => [
      ...(value === fallback ? ["    #[default]"] : []),
      ...(lowercase ? [] : [`    #[serde(rename = "${value}")]`]),
      `    ${pascalCase(value)},`,
    ]),
    "}",
  ];
}

/** Each named enum's default: the default of an input field that offers exactly its choices. */
function enumDefaults(manifest: Manifest, model: TypeModel): Map<string, string> {
  const defaults = new Map<string, string>();
  const visit = (schema: Record<string, unknown>) => {
    for (const property of Object.values(
      (schema.properties ?? {}) as Record<string, Record<string, unknown>>,
    )) {
      if (Array.isArray(property.enum) && typeof property.default === "string") {
        const alias = model.declarations.find(
          (declaration) =>
            declaration.kind === "alias" &&
            declaration.type.kind === "literal" &&
            JSON.stringify(declaration.type.values) === JSON.stringify(property.enum),
        );
        if (alias) defaults.set(alias.name, property.default);
      }
      if (property.items) visit(property.items as Record<string, unknown>);
    }
  };
  for (const operation of manifest.operations) visit(operation.input);
  return defaults;
}

/** `pub const RECALL_LIMIT: u32 = 10;` for each default that is a string, number or boolean. */
function defaultLines(manifest: Manifest): string[] {
  const lines: string[] = [];
  for (const operation of manifest.operations) {
    for (const [field, value] of Object.entries(operation.defaults)) {
      const name = `${operation.name}_${field}`.toUpperCase();
      if (typeof value === "string") lines.push(`    pub const ${name}: &str = ${JSON.stringify(value)};`);
      else if (typeof value === "boolean") lines.push(`    pub const ${name}: bool = ${value};`);
      else if (Number.isInteger(value) && (value as number) >= 0)
        lines.push(`    pub const ${name}: u32 = ${value};`);
      else if (typeof value === "number")
        lines.push(`    pub const ${name}: f64 = ${Number.isInteger(value) ? `${value}.0` : value};`);
    }
  }
  return [
    "/// The value the server uses for each input field left out, by operation and field.",
    "#[allow(dead_code)]",
    "pub(crate) mod defaults {",
    ...lines,
    "}",
  ];
}

export function renderRust(manifest: Manifest): string {
  const model = buildTypeModel(manifest, rustNames);
  const defaults = enumDefaults(manifest, model);
  const imports = new Set<string>();
  const blocks: string[][] = [];
  for (const declaration of model.declarations) {
    blocks.push(
      declaration.kind === "object"
        ? structLines(declaration, model, defaults, imports)
        : enumLines(declaration, defaults),
    );
  }
  blocks.push(defaultLines(manifest));
  const handwritten = model.handwritten.map((name) => `super::${name}`);
  const uses = [...imports, ...handwritten, "serde::{Deserialize, Serialize}"].sort((first, second) =>
    first.localeCompare(second),
  );
  const superItems = uses.filter((item) => item.startsWith("super::")).map((item) => item.slice(7));
  const rest = uses.filter((item) => !item.startsWith("super::"));
  const useLines = [
    ...(superItems.length === 1
      ? [`use super::${superItems[0]};`]
      : superItems.length > 1
        ? [`use super::{${superItems.join(", ")}};`]
        : []),
    ...rest.map((item) => `use ${item};`),
  ];
  const header = [
    "//! Generated by `npm run contract` from the operation registry (sdks/contract/operations.json); do",
    "//! not edit. What each route answers, and the memories and relations an import sends: responses",
    "//! keep every documented field (nullable ones as `Option`), ignore fields they do not know, and read",
    "//! an absent list or object as an empty one.",
    "",
    ...useLines,
  ];
  return `${[header, ...blocks].map((block) => block.join("\n")).join("\n\n")}\n`;
}
