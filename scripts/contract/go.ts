/**
 * sdks/go/types_generated.go: the structs of what each route answers (named as in type-names.ts,
 * with Go's initialisms and embedded structs) and each operation's scalar defaults as unexported
 * constants. Request structs stay handwritten (types_*.go): their zero values mean "the default",
 * which the methods fill in. Written as gofmt writes it, so `gofmt -l` finds nothing.
 */
import type { Manifest } from "./manifest.ts";
import {
  buildTypeModel,
  type FieldDeclaration,
  fieldOverride,
  type ObjectDeclaration,
  ownFields,
  type TypeModel,
  type TypeNode,
} from "./type-model.ts";
import { goFieldTypes, goNames } from "./type-names.ts";

export const goTarget = "sdks/go/types_generated.go";

const initialisms = new Set([
  "id",
  "url",
  "http",
  "api",
  "mcp",
  "lsp",
  "gb",
  "ms",
  "pvc",
  "npm",
  "json",
  "ip",
]);

/** `source_session_id` → `SourceSessionID`. */
export const goName = (wire: string) =>
  wire
    .split("_")
    .map((word) => (initialisms.has(word) ? word.toUpperCase() : word[0].toUpperCase() + word.slice(1)))
    .join("");

function literalType(values: readonly unknown[]): string {
  if (values.every((value) => typeof value === "string")) return "string";
  if (values.every((value) => Number.isInteger(value))) return "int";
  if (values.every((value) => typeof value === "number")) return "float64";
  if (values.every((value) => typeof value === "boolean")) return "bool";
  return "any";
}

function goType(node: TypeNode, model: TypeModel, scalar?: string): string {
  switch (node.kind) {
    case "string":
      return scalar ?? "string";
    case "integer":
      return scalar ?? "int";
    case "number":
      return scalar ?? "float64";
    case "boolean":
      return "bool";
    case "literal":
      return literalType(node.values);
    case "array":
      return `[]${goType(node.items, model)}`;
    case "map":
      return `map[string]${goType(node.values, model)}`;
    case "nullable": {
      const inner = goType(node.inner, model, scalar);
      // A nil slice, map or interface is JSON null already.
      return /^(\[\]|map\[|any$)/.test(inner) ? inner : `*${inner}`;
    }
    case "ref": {
      const target = model.declarations.find((declaration) => declaration.name === node.name);
      return target?.kind === "alias" ? goType(target.type, model) : node.name;
    }
    case "null":
    case "unknown":
    case "union":
      return "any";
    case "inline":
      throw new Error("Go declares every object it uses");
  }
}

/** `// text` lines of at most about 100 characters. */
function commentLines(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = `${indent}//`;
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length > 100 && line !== `${indent}//`) {
      lines.push(line);
      line = `${indent}//`;
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** Field lines aligned in columns as gofmt aligns them: a field with a comment is a section of its own. */
function fieldLines(fields: FieldDeclaration[], model: TypeModel): string[] {
  const rows = fields.map((field) => ({
    comment: field.description ? commentLines(field.description, "\t") : [],
    name: goName(field.name),
    type: goType(field.type, model, fieldOverride(goFieldTypes, field)),
    tag: `\`json:"${field.name}${field.required ? "" : ",omitempty"}"\``,
  }));
  const sections: (typeof rows)[] = [];
  let current: typeof rows = [];
  for (const row of rows) {
    if (row.comment.length > 0) {
      if (current.length > 0) sections.push(current);
      sections.push([row]);
      current = [];
    } else {
      current.push(row);
    }
  }
  if (current.length > 0) sections.push(current);
  return sections.flatMap((section) => {
    const nameWidth = Math.max(...section.map((row) => row.name.length));
    const typeWidth = Math.max(...section.map((row) => row.type.length));
    return section.flatMap((row) => [
      ...row.comment,
      `\t${row.name.padEnd(nameWidth)} ${row.type.padEnd(typeWidth)} ${row.tag}`,
    ]);
  });
}

function structLines(declaration: ObjectDeclaration, model: TypeModel): string[] {
  const doc = declaration.doc ? commentLines(`${declaration.name} ${declaration.doc}`, "") : [];
  const embedded = declaration.embed ? [`\t${declaration.embed.type}`] : [];
  return [
    ...doc,
    `type ${declaration.name} struct {`,
    ...embedded,
    ...fieldLines(ownFields(declaration, model), model),
    "}",
  ];
}

/** `defaultRecallLimit = 10`, aligned, for each default that is a string, number or boolean. */
function defaultLines(manifest: Manifest): string[] {
  const rows = manifest.operations.flatMap((operation) =>
    Object.entries(operation.defaults)
      .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
      .map(([field, value]) => ({ name: `default${goName(operation.name)}${goName(field)}`, value })),
  );
  const width = Math.max(...rows.map((row) => row.name.length));
  return [
    "// The value the server uses for each input field left out, by operation and field.",
    "const (",
    ...rows.map((row) => `\t${row.name.padEnd(width)} = ${JSON.stringify(row.value)}`),
    ")",
  ];
}

export function renderGo(manifest: Manifest): string {
  const model = buildTypeModel(manifest, goNames);
  const blocks = [
    [
      "// Code generated by `npm run contract` from the operation registry (sdks/contract/operations.json). DO NOT EDIT.",
      "",
      "package cairn",
      "",
      "// What each route answers, as the server's operation registry declares it. Timestamps are",
      "// ISO-8601 strings as the server sends them; nullable values are pointers (or nil slices and maps).",
    ],
  ];
  for (const declaration of model.declarations) {
    if (declaration.kind === "object") blocks.push(structLines(declaration, model));
  }
  blocks.push(defaultLines(manifest));
  return `${blocks.map((block) => block.join("\n")).join("\n\n")}\n`;
}
