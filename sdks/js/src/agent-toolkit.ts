/**
 * Every Cairn MCP tool for an agent framework: specs for the OpenAI SDK (Chat Completions and
 * Responses, strict mode), the Anthropic SDK and the Vercel AI SDK, and one executor that runs a
 * model's tool call through `POST /v1/tools/{operation}` (`callTool`). Answers are JSON text (or,
 * for the AI SDK, the parsed JSON); failures are the REST error body `{"error": {...}}`, never thrown.
 */
import { httpTimeoutMs, parseArguments, ToolInputError, wireInput } from "./agent-toolkit-arguments.ts";
import type { CairnClient } from "./client.ts";
import { CairnApiError, CairnConnectionError } from "./errors.ts";
import { type JsonSchema, type ToolSpec, toolSpecs } from "./generated/tool-specs.ts";

export type ToolProfile = "all" | "memory" | "sandbox";

export interface CairnToolkitOptions {
  /** `memory`, `sandbox` or `all` (the default), as `cairn mcp serve --tools`. */
  profile?: ToolProfile;
  /** Only these tools, in this order. */
  names?: string[];
}

/** What a tool call gives the model: JSON text, and whether it failed (Anthropic's `is_error`). */
export interface ToolCallResult {
  content: string;
  isError: boolean;
}

export interface OpenAiChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict: true };
}

export interface OpenAiResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: true;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: "object" };
}

/** An AI SDK tool: pass `tools: toolkit.aiSdkTools({ jsonSchema })` to generateText or streamText. */
export interface AiSdkTool<Schema> {
  description: string;
  inputSchema: Schema;
  execute(input: unknown): Promise<unknown>;
}

/** The AI SDK's `jsonSchema` helper (`import { jsonSchema } from "ai"`), so this SDK needs no dependency. */
export interface AiSdkHelpers<Schema> {
  jsonSchema(schema: JsonSchema): Schema;
}

/** The specs of a profile, or those named; an unknown name throws. */
export function selectToolSpecs(options: CairnToolkitOptions = {}): ToolSpec[] {
  const profile = options.profile ?? "all";
  const specs = toolSpecs.filter((spec) => profile === "all" || spec.profile === profile);
  if (!options.names) return specs;
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const unknown = options.names.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    throw new Error(`No such tool ${unknown.join(", ")}; the tools are ${[...byName.keys()].join(", ")}`);
  }
  return options.names.map((name) => byName.get(name)!);
}

const errorText = (error: Record<string, unknown>): ToolCallResult => ({
  content: JSON.stringify({ error }),
  isError: true,
});

/** A validation error's locations as the tool names its arguments (`query`, not `body.q`). */
function located(spec: ToolSpec, details: unknown): unknown {
  if (!Array.isArray(details)) return details;
  const argumentOf = new Map(Object.entries(spec.rename).map(([argument, field]) => [field, argument]));
  return details.map((item) => {
    if (typeof item !== "object" || item === null || !Array.isArray(item.loc)) return item;
    let loc: unknown[] = item.loc;
    if (["body", "query", "path"].includes(String(loc[0]))) loc = loc.slice(1);
    if (typeof loc[0] === "string") loc = [argumentOf.get(loc[0]) ?? loc[0], ...loc.slice(1)];
    return { ...item, loc };
  });
}

function failure(spec: ToolSpec, error: unknown): ToolCallResult {
  if (error instanceof ToolInputError) {
    return errorText({ code: "validation_error", message: error.message, details: error.details });
  }
  if (error instanceof CairnApiError) {
    return errorText({
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      remediation: error.remediation ?? undefined,
      details: located(spec, error.details),
    });
  }
  if (error instanceof CairnConnectionError) {
    return errorText({ code: "connection_failed", message: `Cairn did not answer: ${error.message}` });
  }
  return errorText({ code: "internal_error", message: String(error) });
}

export interface CairnToolkit {
  readonly specs: readonly ToolSpec[];
  readonly toolNames: string[];
  /** Chat Completions function tools, `strict: true`. */
  openaiTools(): OpenAiChatTool[];
  /** Responses API function tools, `strict: true`. */
  openaiResponsesTools(): OpenAiResponsesTool[];
  /** Anthropic Messages tools (`name`, `description`, `input_schema`). */
  anthropicTools(): AnthropicTool[];
  /** Vercel AI SDK tools by name; `execute` answers the parsed JSON result or error body. */
  aiSdkTools<Schema>(helpers: AiSdkHelpers<Schema>): Record<string, AiSdkTool<Schema>>;
  /** Runs a tool call (arguments as JSON text or an object); never throws. */
  run(name: string, argumentsValue?: unknown): Promise<ToolCallResult>;
  /** The call's answer as JSON text (an error as `{"error": {...}}`); never throws. */
  execute(name: string, argumentsValue?: unknown): Promise<string>;
}

export function createCairnToolkit(client: CairnClient, options: CairnToolkitOptions = {}): CairnToolkit {
  const specs = selectToolSpecs(options);
  const byName = new Map(specs.map((spec) => [spec.name, spec]));

  async function run(name: string, argumentsValue?: unknown): Promise<ToolCallResult> {
    const spec = byName.get(name);
    if (!spec) {
      const names = [...byName.keys()].join(", ") || "none";
      return errorText({
        code: "not_found",
        message: `Unknown tool ${JSON.stringify(name)}; the tools are ${names}`,
      });
    }
    let given: Record<string, unknown>;
    let output: unknown;
    try {
      given = parseArguments(argumentsValue);
      output = await client.callTool(spec.operation, wireInput(spec, given), {
        timeoutMs: httpTimeoutMs(spec, given),
      });
    } catch (error) {
      return failure(spec, error);
    }
    const empty =
      output === null || (typeof output === "object" && Object.keys(output as object).length === 0);
    if (spec.done && empty) output = { status: spec.done.status, id: given[spec.done.id_argument] };
    return { content: JSON.stringify(output), isError: false };
  }

  return {
    specs,
    toolNames: [...byName.keys()],
    openaiTools: () =>
      specs.map((spec) => ({
        type: "function",
        function: {
          name: spec.name,
          description: spec.description,
          parameters: spec.strict_input_schema,
          strict: true,
        },
      })),
    openaiResponsesTools: () =>
      specs.map((spec) => ({
        type: "function",
        name: spec.name,
        description: spec.description,
        parameters: spec.strict_input_schema,
        strict: true,
      })),
    anthropicTools: () =>
      specs.map((spec) => ({
        name: spec.name,
        description: spec.description,
        input_schema: spec.input_schema as AnthropicTool["input_schema"],
      })),
    aiSdkTools: (helpers) =>
      Object.fromEntries(
        specs.map((spec) => [
          spec.name,
          {
            description: spec.description,
            inputSchema: helpers.jsonSchema(spec.input_schema),
            execute: async (input: unknown) => JSON.parse((await run(spec.name, input)).content),
          },
        ]),
      ),
    run,
    execute: async (name, argumentsValue) => (await run(name, argumentsValue)).content,
  };
}
