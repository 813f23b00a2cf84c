/**
 * The parameter tables of the docs, written between marker comments from the manifest:
 * `<!-- generated:params <operation> -->` … `<!-- /generated -->` is the table of an operation's
 * body or query fields (docs/api.md), `<!-- generated:mcp-tools -->` … `<!-- /generated -->` the
 * table of every MCP tool (docs/mcp.md). The prose around them is written by hand.
 */
import type { JsonSchema } from "./json-schema.ts";
import { isMap, literalValues, withoutNull } from "./json-schema.ts";
import type { Manifest, ManifestOperation } from "./manifest.ts";

export const docsTargets = ["docs/api.md", "docs/mcp.md"];

const code = (text: string) => `\`${text}\``;
/** Text for a table cell: no line breaks, `|` escaped, and `<…>` shown rather than read as HTML. */
const cell = (text: string) =>
  text.replaceAll("|", "\\|").replaceAll("\n", " ").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** 65,536 rather than 65536. */
const number = (value: number) => (Math.abs(value) >= 10_000 ? value.toLocaleString("en-US") : String(value));

function orList(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

const plural: Record<string, string> = {
  string: "strings",
  integer: "integers",
  number: "numbers",
  boolean: "booleans",
  object: "objects",
};

/** A field's type for a person: `string or null`, `list of strings`, `"small", "medium" or "large"`. */
function typeText(raw: JsonSchema): string {
  const { schema, nullable } = withoutNull(raw);
  const suffix = nullable ? " or null" : "";
  const values = literalValues(schema);
  if (values) return `${orList(values.map((value) => code(JSON.stringify(value))))}${suffix}`;
  if (schema.anyOf) return `${orList(schema.anyOf.map(typeText))}${suffix}`;
  if (schema.type === "array") {
    const items = schema.items ? typeText(schema.items) : "any JSON";
    return `list of ${plural[items] ?? items}${suffix}`;
  }
  if (isMap(schema)) {
    const values = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
    const valueType = typeText(values);
    return valueType === "any JSON"
      ? `object${suffix}`
      : `object of string → ${valueType}${nullable ? ", or null" : ""}`;
  }
  if (typeof schema.type === "string") return `${schema.type}${suffix}`;
  return "any JSON";
}

function range(minimum: number | undefined, maximum: number | undefined, unit: string): string | null {
  if (minimum !== undefined && maximum !== undefined)
    return minimum === maximum
      ? `exactly ${number(minimum)}${unit}`
      : `${number(minimum)}–${number(maximum)}${unit}`;
  if (maximum !== undefined) return `≤ ${number(maximum)}${unit}`;
  if (minimum !== undefined) return `≥ ${number(minimum)}${unit}`;
  return null;
}

/** A field's bounds for a person: `1–200 characters`, `≤ 50 items; each 1–200 characters`. */
function limitsText(raw: JsonSchema): string {
  const { schema } = withoutNull(raw);
  const parts: string[] = [];
  const numeric = range(schema.minimum as number | undefined, schema.maximum as number | undefined, "");
  if (schema.exclusiveMinimum !== undefined) parts.push(`> ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined) parts.push(`< ${schema.exclusiveMaximum}`);
  if (numeric) parts.push(numeric);
  const length = range(
    schema.minLength as number | undefined,
    schema.maxLength as number | undefined,
    " characters",
  );
  if (length) parts.push(length);
  if (typeof schema.pattern === "string") parts.push(`matches ${code(schema.pattern)}`);
  const items = range(schema.minItems as number | undefined, schema.maxItems as number | undefined, " items");
  if (items) parts.push(items);
  if (schema.items) {
    const each = limitsText(schema.items);
    if (each) parts.push(`each ${each}`);
  }
  if (schema.propertyNames) {
    const keys = limitsText(schema.propertyNames);
    if (keys) parts.push(`keys ${keys}`);
  }
  if (typeof schema.additionalProperties === "object") {
    const values = limitsText(schema.additionalProperties);
    if (values) parts.push(`values ${values}`);
  }
  return parts.join("; ");
}

/** The table of an operation's body or query fields (not its path parameters). */
export function paramsTable(operation: ManifestOperation): string {
  const inPath = new Set(operation.http?.path_parameters ?? []);
  const required = new Set(operation.input.required ?? []);
  const rows = Object.entries(operation.input.properties ?? {})
    .filter(([field]) => !inPath.has(field))
    .map(([field, schema]) => {
      const fallback = required.has(field)
        ? "required"
        : schema.default !== undefined
          ? code(JSON.stringify(schema.default))
          : "—";
      return `| ${code(field)} | ${cell(typeText(schema))} | ${cell(fallback)} | ${cell(limitsText(schema) || "—")} | ${cell(schema.description ?? "")} |`;
    });
  return ["| Field | Type | Default | Limits | Description |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** `…/exec` for a route under a session, else the whole path. */
const shortPath = (path: string) => path.replace(/^\/v1\/sandboxes\/\{session_id\}(?=\/)/, "…");

/** The table of every MCP tool: its arguments with their defaults, and the REST route it shares. */
export function mcpToolsTable(manifest: Manifest): string {
  const rows = manifest.operations.flatMap((operation) => {
    const tool = operation.mcp;
    if (!tool) return [];
    const properties = Object.entries(tool.input.properties ?? {});
    const argumentsText =
      properties.length === 0
        ? "—"
        : properties
            .map(([name, schema]) =>
              schema.default === undefined ? code(name) : `${code(name)} (${JSON.stringify(schema.default)})`,
            )
            .join(", ");
    const notes = [
      ...Object.entries(tool.rename).map(([field, name]) => `${code(name)} is ${code(field)}`),
      ...(tool.omit.length > 0 ? [`no ${tool.omit.map(code).join(", ")}`] : []),
      ...(tool.presents_output ? ["its result differs: see Results"] : []),
    ];
    const route = operation.http ? code(`${operation.http.method} ${shortPath(operation.http.path)}`) : "—";
    return [
      `| ${code(tool.name)} | ${cell(argumentsText)} | ${route}${notes.length ? ` (${notes.join("; ")})` : ""} |`,
    ];
  });
  return ["| Tool | Arguments (default) | Same as |", "|---|---|---|", ...rows].join("\n");
}

const block = /<!-- generated:([a-z-]+)(?: ([a-z_]+))? -->\n[\s\S]*?<!-- \/generated -->/g;

/** The document with each marked block written again from the manifest. */
export function renderDocument(manifest: Manifest, text: string, file: string): string {
  return text.replace(block, (_whole, kind: string, name: string | undefined) => {
    let table: string;
    if (kind === "params") {
      const operation = manifest.operations.find((candidate) => candidate.name === name);
      if (!operation) throw new Error(`${file}: no operation ${name} for its parameter table`);
      table = paramsTable(operation);
    } else if (kind === "mcp-tools") {
      table = mcpToolsTable(manifest);
    } else {
      throw new Error(`${file}: unknown generated block ${kind}`);
    }
    const opening = `<!-- generated:${kind}${name ? ` ${name}` : ""} -->`;
    return `${opening}\n<!-- Written by \`npm run contract\` from the operation registry; edit the operation, not this table. -->\n${table}\n<!-- /generated -->`;
  });
}
