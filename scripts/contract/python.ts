/**
 * sdks/python/src/cairn/_generated_types.py: the REST API's JSON shapes as TypedDicts (named as in
 * type-names.ts; cairn.models re-exports them) and each operation's scalar defaults as constants.
 * Written as `ruff format` writes it, so the SDK's format check passes on it as it is.
 */
import type { Manifest } from "./manifest.ts";
import {
  buildTypeModel,
  type FieldDeclaration,
  type ObjectDeclaration,
  ownFields,
  type TypeModel,
  type TypeNode,
} from "./type-model.ts";
import { commonNames } from "./type-names.ts";

export const pythonTarget = "sdks/python/src/cairn/_generated_types.py";

const lineLength = 110;
const keywords = new Set([
  "class",
  "def",
  "from",
  "global",
  "import",
  "in",
  "is",
  "lambda",
  "pass",
  "return",
]);

/** `#: text` lines no longer than the line length. */
function commentLines(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const lines: string[] = [];
  let line = `${indent}#:`;
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > lineLength && line !== `${indent}#:`) {
      lines.push(line);
      line = `${indent}#:`;
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

class Imports {
  readonly typing = new Set<string>();
}

/** A literal as Python writes it: JSON's strings and numbers, and the booleans True and False (`z.literal(true)`). */
const pythonLiteral = (value: string | number | boolean) =>
  typeof value === "boolean" ? (value ? "True" : "False") : JSON.stringify(value);

function render(node: TypeNode, imports: Imports): string {
  switch (node.kind) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    case "null":
      return "None";
    case "unknown":
      imports.typing.add("Any");
      return "Any";
    case "literal":
      imports.typing.add("Literal");
      return `Literal[${node.values.map(pythonLiteral).join(", ")}]`;
    case "array":
      imports.typing.add("List");
      return `List[${render(node.items, imports)}]`;
    case "map":
      imports.typing.add("Dict");
      return `Dict[str, ${render(node.values, imports)}]`;
    case "nullable":
      return `${render(node.inner, imports)} | None`;
    case "union":
      return node.options.map((option) => render(option, imports)).join(" | ");
    case "ref":
      return node.name;
    case "inline":
      throw new Error("Python declares every object it uses");
  }
}

/** `Name = Literal[...]`, exploded one value a line when it is too long, as ruff formats it. */
function assignment(name: string, value: string, annotation = ""): string[] {
  const head = `${name}${annotation} = `;
  const line = `${head}${value}`;
  const literal = value.match(/^Literal\[(.*)\]$/);
  if (line.length <= lineLength || !literal) return [line];
  return [`${head}Literal[`, ...literal[1].split(", ").map((item) => `    ${item},`), "]"];
}

function fieldLines(fields: FieldDeclaration[], imports: Imports): string[] {
  return fields.flatMap((field) => {
    if (keywords.has(field.name) || !/^[A-Za-z_]\w*$/.test(field.name))
      throw new Error(`${field.name} cannot be a TypedDict field`);
    return [...commentLines(field.description, "    "), `    ${field.name}: ${render(field.type, imports)}`];
  });
}

function classLines(declaration: ObjectDeclaration, model: TypeModel, imports: Imports): string[] {
  const fields = ownFields(declaration, model);
  const parent = declaration.embed?.type ?? "TypedDict";
  if (parent === "TypedDict") imports.typing.add("TypedDict");
  const required = fields.filter((field) => field.required);
  const optional = fields.filter((field) => !field.required);
  const docstring = declaration.doc ? [`    """${declaration.doc}"""`, ""] : [];
  if (optional.length === 0) {
    return [`class ${declaration.name}(${parent}):`, ...docstring, ...fieldLines(required, imports)];
  }
  if (required.length === 0) {
    return [
      `class ${declaration.name}(${parent}, total=False):`,
      ...docstring,
      ...fieldLines(optional, imports),
    ];
  }
  const base = `_${declaration.name}Required`;
  return [
    `class ${base}(${parent}):`,
    ...fieldLines(required, imports),
    "",
    "",
    `class ${declaration.name}(${base}, total=False):`,
    ...docstring,
    ...fieldLines(optional, imports),
  ];
}

/** `DEFAULT_RECALL_LIMIT: Final = 10`, for each default that is a string, number or boolean. */
function defaultLines(manifest: Manifest, imports: Imports): string[] {
  const lines: string[] = [];
  for (const operation of manifest.operations) {
    for (const [field, value] of Object.entries(operation.defaults)) {
      if (!["string", "number", "boolean"].includes(typeof value)) continue;
      imports.typing.add("Final");
      const literal = typeof value === "boolean" ? (value ? "True" : "False") : JSON.stringify(value);
      lines.push(`DEFAULT_${operation.name.toUpperCase()}_${field.toUpperCase()}: Final = ${literal}`);
    }
  }
  return lines;
}

export function renderPython(manifest: Manifest): string {
  const model = buildTypeModel(manifest, commonNames);
  const imports = new Imports();
  const blocks: string[][] = [];
  for (const declaration of model.declarations) {
    if (declaration.kind === "alias") {
      blocks.push([
        ...commentLines(declaration.doc, ""),
        ...assignment(declaration.name, render(declaration.type, imports)),
      ]);
    } else {
      blocks.push(classLines(declaration, model, imports));
    }
  }
  const defaults = defaultLines(manifest, imports);
  const header = [
    '"""Generated by `npm run contract` from the operation registry (sdks/contract/operations.json); do',
    "not edit. The REST API's JSON shapes as ``TypedDict``s, which ``cairn.models`` re-exports, and the",
    'value the server uses for each input field left out."""',
    "",
    "from __future__ import annotations",
    "",
    `from typing import ${[...imports.typing].sort().join(", ")}`,
  ];
  return `${[
    header.join("\n"),
    ...blocks.map((block) => block.join("\n")),
    ["#: The value the server uses for each input field left out, by operation and field.", ...defaults].join(
      "\n",
    ),
  ].join("\n\n\n")}\n`;
}
