/**
 * A model's tool arguments as the operation's wire input, mapped as the MCP tool maps them
 * (transports/mcp/tools.ts `toInput`): unknown arguments refused, a null that is not a value of its
 * own left out, the tool's defaults filled, names mapped (`query` → `q`), and what strict mode
 * encodes decoded. Nothing here names a tool: each spec says how its arguments travel.
 */
import type { ToolSpec } from "./generated/tool-specs.ts";

/** Extra HTTP wait beyond a server-side wait (exec's timeout), so the server's answer comes first. */
export const waitMarginMs = 15_000;

/** Arguments refused before any request, as the server refuses them (a `validation_error`). */
export class ToolInputError extends Error {
  override name = "ToolInputError";
  readonly details: Array<Record<string, unknown>> | undefined;

  constructor(message: string, details?: Array<Record<string, unknown>>) {
    super(message);
    this.details = details;
  }
}

/** The arguments as an object: JSON text (OpenAI) or an object (Anthropic, the AI SDK). */
export function parseArguments(argumentsValue: unknown): Record<string, unknown> {
  if (argumentsValue === undefined || argumentsValue === null) return {};
  let parsed = argumentsValue;
  if (typeof argumentsValue === "string") {
    if (argumentsValue.trim() === "") return {};
    try {
      parsed = JSON.parse(argumentsValue);
    } catch (error) {
      throw new ToolInputError(`The arguments are not valid JSON: ${(error as Error).message}`);
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ToolInputError("The arguments must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

function decode(spec: ToolSpec, argument: string, value: unknown): unknown {
  const encoding = spec.encoded[argument];
  if (encoding === "json" && typeof value === "string") {
    try {
      return JSON.parse(value);
    } catch (error) {
      throw new ToolInputError("Invalid request", [
        { type: "invalid_json", loc: [argument], msg: `not valid JSON: ${(error as Error).message}` },
      ]);
    }
  }
  if (
    encoding === "entries" &&
    Array.isArray(value) &&
    value.every((entry) => typeof entry === "object" && entry !== null && "key" in entry)
  ) {
    return Object.fromEntries(
      value.map((entry: { key: string; value?: unknown }) => [entry.key, entry.value]),
    );
  }
  return value;
}

export function wireInput(spec: ToolSpec, argumentsValue: Record<string, unknown>): Record<string, unknown> {
  const known = Object.keys((spec.input_schema.properties as Record<string, unknown> | undefined) ?? {});
  const unknown = Object.keys(argumentsValue).filter((argument) => !known.includes(argument));
  if (unknown.length > 0) {
    throw new ToolInputError(
      "Invalid request",
      unknown.map((argument) => ({
        type: "unknown_argument",
        loc: [argument],
        msg: `${spec.name} takes no argument ${JSON.stringify(argument)}; it takes ${known.join(", ") || "none"}`,
      })),
    );
  }
  const given: Record<string, unknown> = {};
  for (const [argument, value] of Object.entries(argumentsValue)) {
    if (value === undefined || (value === null && !spec.nullable.includes(argument))) continue;
    given[argument] = decode(spec, argument, value);
  }
  for (const [argument, value] of Object.entries(spec.defaults)) {
    if (!(argument in given)) given[argument] = value;
  }
  return Object.fromEntries(
    Object.entries(given).map(([argument, value]) => [spec.rename[argument] ?? argument, value]),
  );
}

/** How long to wait for an answer when the server itself waits (exec, process_wait), else undefined. */
export function httpTimeoutMs(spec: ToolSpec, argumentsValue: Record<string, unknown>): number | undefined {
  let seconds = 0;
  for (const [argument, fallback] of Object.entries(spec.waits)) {
    const value = argumentsValue[argument];
    seconds += typeof value === "number" ? value : fallback;
  }
  return seconds > 0 ? seconds * 1000 + waitMarginMs : undefined;
}
