/**
 * Flag values are checked by the server's own input schemas (core/registry.ts), before any
 * request: the CLI holds no second definition of an operation's limits, choices or defaults.
 * Help text, `--size` choices and defaults are read from the same schemas.
 */
import { Option } from "commander";
import type { z } from "zod";
import { type OperationName, registry } from "../core/registry.ts";
import { CliError } from "./errors.ts";

type AnySchema = z.ZodType & { description?: string; def: Record<string, unknown> };

function fieldSchema(operation: OperationName, field: string): AnySchema {
  const shape = (registry[operation].input as unknown as z.ZodObject).shape as Record<string, AnySchema>;
  const schema = shape[field];
  if (!schema) throw new Error(`${operation} has no input field ${field}`);
  return schema;
}

/** The schema under defaults, nullables, optionals and transforms. */
function innermost(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const inner = (current.def.innerType ?? current.def.in) as AnySchema | undefined;
    if (!inner) return current;
    current = inner;
  }
}

export function fieldDescription(operation: OperationName, field: string): string {
  return fieldSchema(operation, field).description ?? "";
}

export function fieldChoices(operation: OperationName, field: string): string[] | undefined {
  const inner = innermost(fieldSchema(operation, field)) as AnySchema & { options?: unknown[] };
  return inner.def.type === "enum" ? (inner.options as string[]) : undefined;
}

export function fieldDefault(operation: OperationName, field: string): unknown {
  let current: AnySchema | undefined = fieldSchema(operation, field);
  while (current) {
    if (current.def.type === "default") return current.def.defaultValue;
    current = (current.def.innerType ?? current.def.in) as AnySchema | undefined;
  }
  return undefined;
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
  const option = new Option(flags, notes.length ? `${text} (${notes.join("; ")})` : text);
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
  const result = (registry[operation].input as unknown as z.ZodType).safeParse(body);
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
