/**
 * Flag values are checked against the server's own input schemas before any request: their JSON
 * Schemas, which `npm run contract` writes from the registry into generated/operation-inputs.ts, so
 * the CLI neither holds a second definition of an operation's limits, choices or defaults nor loads
 * the server's handlers. Help text, `--size` choices and defaults are read from the same schemas.
 * Checks a JSON Schema cannot state (an exact package pin, a date that exists) are the server's.
 */
import { Option } from "commander";
import { z } from "zod";
import { CliError } from "./errors.ts";
import { type OperationName, operationInputs } from "./generated/operation-inputs.ts";

export type { OperationName };

interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}

export function fieldSchema(operation: OperationName, field: string): JsonSchema {
  const schema = (operationInputs[operation] as JsonSchema).properties?.[field];
  if (!schema) throw new Error(`${operation} has no input field ${field}`);
  return schema;
}

export function fieldDescription(operation: OperationName, field: string): string {
  return fieldSchema(operation, field).description ?? "";
}

export function fieldChoices(operation: OperationName, field: string): string[] | undefined {
  const schema = fieldSchema(operation, field);
  const choices = [schema, ...(schema.anyOf ?? [])].find((variant) => Array.isArray(variant.enum))?.enum;
  return choices as string[] | undefined;
}

export function fieldDefault(operation: OperationName, field: string): unknown {
  return fieldSchema(operation, field).default;
}

const validators = new Map<string, z.ZodType>();

/** The zod schema of a JSON Schema, built once: zod's own messages for every refusal. */
function validator(key: string, schema: JsonSchema): z.ZodType {
  let built = validators.get(key);
  if (!built) {
    built = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    validators.set(key, built);
  }
  return built;
}

/** A value of one field checked against that field's schema: true, or the refusal's message. */
export function checkField(operation: OperationName, field: string, value: unknown): true | string {
  const result = validator(`${operation}.${field}`, fieldSchema(operation, field)).safeParse(value);
  return result.success || result.error.issues[0].message;
}

/**
 * A commander option whose help, choices and shown default come from the operation's schema.
 * The default is only named in the help: the SDK sends it, so a flag left out stays undefined.
 */
export function schemaOption(flags: string, operation: OperationName, field: string, extra = ""): Option {
  const notes = extra ? [extra] : [];
  const fallback = fieldDefault(operation, field);
  const shown = typeof fallback === "object" ? JSON.stringify(fallback) : String(fallback);
  if (fallback !== undefined && fallback !== null && shown !== "[]" && shown !== "{}" && shown !== "false")
    notes.push(`default: ${shown}`);
  const text = fieldDescription(operation, field);
  const help = text && notes.length ? `${text} (${notes.join("; ")})` : text || notes.join("; ");
  const option = new Option(flags, help);
  const choices = fieldChoices(operation, field);
  if (choices) option.choices(choices);
  return option;
}

export const flagFor = (field: string) => `--${field.replaceAll("_", "-")}`;

/**
 * Checks a request body against the operation's input schema; a refusal names the flag (or the
 * argument) and the schema's own message, as a validation_error (exit 2).
 */
export function validateInput(
  operation: OperationName,
  body: Record<string, unknown>,
  names: Record<string, string> = {},
): void {
  const result = validator(operation, operationInputs[operation] as JsonSchema).safeParse(body);
  if (result.success) return;
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? "");
    const name = names[field] ?? flagFor(field);
    const rest = issue.path.slice(1).join(".");
    return `${name}${rest ? ` (${rest})` : ""}: ${issue.message}`;
  });
  throw new CliError(`invalid arguments: ${problems.join("; ")}`, "validation_error");
}

/** A number from a flag; NaN goes on to the schema, which names the flag in its refusal. */
export const toNumber = (value: string) => (value.trim() === "" ? Number.NaN : Number(value));

/** Repeatable flags collect into a list (also accepts comma-separated values). */
export const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean),
];
