/**
 * What `cairn tools call NAME --help` prints, drawn from the tool's JSON Schema as `GET /v1/tools`
 * serves it: the CLI knows no plugin tool in advance, so the help comes from the server, not from
 * commander. Also the close names offered when a tool name is unknown.
 */
import type { ToolDescription } from "cairn-client";

type JsonSchema = Record<string, unknown>;

const schemaList = (value: unknown): JsonSchema[] => (Array.isArray(value) ? (value as JsonSchema[]) : []);

/** A short type for a person: `string`, `integer[]`, `one of fact|note`, `string|null`. */
export function schemaType(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((value) => String(value)).join("|")}`;
  if ("const" in schema) return JSON.stringify(schema.const);
  const variants = [...schemaList(schema.anyOf), ...schemaList(schema.oneOf)];
  if (variants.length) return [...new Set(variants.map(schemaType))].join("|");
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return types
    .map((type) => {
      if (type === "array")
        return `${schema.items ? schemaType(schema.items as JsonSchema) : "any"}[]`.replace(
          /^(.*\|.*)\[\]$/,
          "($1)[]",
        );
      return type ?? "any";
    })
    .join("|");
}

/** A value that fits the schema, for the example line: its own example or default, else a stand-in. */
function exampleValue(schema: JsonSchema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = [...schemaList(schema.anyOf), ...schemaList(schema.oneOf)];
  const concrete = variants.find((variant) => variant.type !== "null");
  if (concrete) return exampleValue(concrete);
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== "null") : schema.type;
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object") return {};
  return "text";
}

/** The input a person would start from: every required field with a value that fits. */
export function exampleInput(tool: ToolDescription): Record<string, unknown> {
  const properties = (tool.input_schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (tool.input_schema.required ?? []) as string[];
  return Object.fromEntries(required.map((field) => [field, exampleValue(properties[field] ?? {})]));
}

/** `'…'` quoting for a POSIX shell, so the example line can be pasted as it is. */
const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The whole help text of one tool. */
export function toolHelp(tool: ToolDescription): string {
  const properties = (tool.input_schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((tool.input_schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(([field, schema]) => {
    const notes = [schemaType(schema), required.has(field) ? "required" : "optional"];
    if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
    return [field, notes.join(", "), typeof schema.description === "string" ? schema.description : ""];
  });
  const nameWidth = Math.max(0, ...rows.map(([field]) => field.length));
  const notesWidth = Math.max(0, ...rows.map(([, notes]) => notes.length));
  const fields = rows.map(([field, notes, description]) =>
    `  ${field.padEnd(nameWidth)}  ${notes.padEnd(notesWidth)}  ${description}`.trimEnd(),
  );
  const source = tool.plugin ? `from plugin ${tool.plugin}` : "built in";
  const effects = [
    tool.annotations.read_only ? "read-only" : null,
    tool.annotations.destructive ? "destructive" : null,
    tool.annotations.idempotent ? "idempotent" : null,
    tool.annotations.open_world ? "reaches the internet" : null,
  ].filter(Boolean);
  return [
    `Usage: cairn tools call ${tool.name} --input JSON|@file|- [--json]`,
    "",
    `${tool.title} (${source}${effects.length ? `; ${effects.join(", ")}` : ""})`,
    "",
    tool.description,
    "",
    "Input (a JSON object):",
    ...(fields.length ? fields : ["  none"]),
    "",
    "Example:",
    `  $ cairn tools call ${tool.name} --input ${shellQuote(JSON.stringify(exampleInput(tool)))}`,
    "",
  ].join("\n");
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++)
      current[column] = Math.min(
        previous[column] + 1,
        current[column - 1] + 1,
        previous[column - 1] + (left[row - 1] === right[column - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[right.length];
}

/** Up to five offered names closest to a mistyped one: a few edits away, or containing it. */
export function closeNames(name: string, offered: string[]): string[] {
  const wanted = name.toLowerCase();
  return offered
    .map((candidate) => {
      const lowered = candidate.toLowerCase();
      // `recent` finds `session-journal.recent`; shorter fragments would match half the list.
      const contains = wanted.length >= 3 && lowered.includes(wanted);
      return { candidate, distance: contains ? 0 : editDistance(wanted, lowered) };
    })
    .filter(({ distance }) => distance <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort(
      (first, second) => first.distance - second.distance || first.candidate.localeCompare(second.candidate),
    )
    .slice(0, 5)
    .map(({ candidate }) => candidate);
}
