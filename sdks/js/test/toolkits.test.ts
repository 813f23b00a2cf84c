/**
 * The agent toolkits (src/toolkits): the specs checked against each framework's own types (this
 * file type-checks only if they fit the OpenAI SDK's, the Anthropic SDK's and the AI SDK's tool
 * types) and checkers (OpenAI's strict-mode rules, its `validateInputTools`, the AI SDK's own
 * tool loop with a mock model); then the executor against a live server, as a model calls it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { generateText, isStepCount, jsonSchema, type ToolSet, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type OpenAI from "openai";
import { validateInputTools } from "openai/lib/parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../../test/mcp/mcp-harness.ts";
import { mcpTools } from "../../../transports/mcp/tools.ts";
import { CairnClient, createCairnToolkit, selectToolSpecs } from "../src/index.ts";

const offline = createCairnToolkit(
  new CairnClient({ baseUrl: "http://127.0.0.1:1", apiKey: "cairn_offline" }),
);

// Strict mode's keywords (platform.openai.com/docs/guides/structured-outputs#supported-schemas).
const strictKeywords = new Set(
  "type properties required additionalProperties items enum const anyOf description pattern format minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems".split(
    " ",
  ),
);

type Schema = Record<string, unknown>;

/** Every place a schema breaks OpenAI's strict rules. */
function strictProblems(schema: Schema, where: string): string[] {
  const problems = Object.keys(schema)
    .filter((keyword) => !strictKeywords.has(keyword))
    .map((keyword) => `${where}: ${keyword} is not permitted`);
  if (schema.type === "object") {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties !== false) problems.push(`${where}: additionalProperties must be false`);
    const required = [...((schema.required as string[]) ?? [])].sort();
    if (JSON.stringify(required) !== JSON.stringify(Object.keys(properties).sort())) {
      problems.push(`${where}: every property must be required`);
    }
    for (const [name, part] of Object.entries(properties))
      problems.push(...strictProblems(part, `${where}.${name}`));
  } else if (schema.type === undefined && schema.anyOf === undefined) {
    problems.push(`${where}: no type`);
  }
  if (schema.items) problems.push(...strictProblems(schema.items as Schema, `${where}[]`));
  for (const part of (schema.anyOf as Schema[] | undefined) ?? [])
    problems.push(...strictProblems(part, where));
  return problems;
}

describe("the agent toolkits' specs", () => {
  it("offer every MCP tool, with the MCP server's names and argument schemas, by profile or by name", () => {
    expect(offline.specs.map((spec) => [spec.name, spec.description, spec.input_schema])).toEqual(
      mcpTools().map((tool) => [tool.name, tool.definition.description, tool.definition.inputSchema]),
    );
    expect(selectToolSpecs({ profile: "memory" }).map((spec) => spec.name)).toEqual([
      "remember",
      "ingest_memory",
      "recall",
      "memory_profile",
      "forget_memory",
    ]);
    expect(selectToolSpecs({ names: ["exec", "recall"] }).map((spec) => spec.name)).toEqual([
      "exec",
      "recall",
    ]);
    expect(() => selectToolSpecs({ names: ["gpu"] })).toThrow("No such tool gpu");
  });

  it("fit the OpenAI SDK's Chat Completions and Responses tools, in strict mode", () => {
    const chat: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = offline.openaiTools();
    const responses: OpenAI.Responses.FunctionTool[] = offline.openaiResponsesTools();
    expect(() => validateInputTools(chat)).not.toThrow();
    for (const spec of chat) {
      expect(spec.function.strict).toBe(true);
      expect(strictProblems(spec.function.parameters as Schema, spec.function.name)).toEqual([]);
    }
    for (const spec of responses) expect(strictProblems(spec.parameters as Schema, spec.name)).toEqual([]);
    const recall = chat.find((spec) => spec.function.name === "recall")!;
    expect((recall.function.parameters as Schema).required).toEqual(["query", "scope", "limit"]);
  });

  it("fit the Anthropic SDK's tools", () => {
    const tools: Anthropic.Messages.Tool[] = offline.anthropicTools();
    const union: Anthropic.Messages.ToolUnion[] = tools;
    expect(union).toHaveLength(offline.toolNames.length);
    expect(tools.map((spec) => spec.input_schema.type)).toEqual(offline.toolNames.map(() => "object"));
    expect(tools.find((spec) => spec.name === "recall")!.input_schema.required).toEqual(["query"]);
  });

  it("fit the AI SDK's ToolSet, which hands the schemas to a model as they are", async () => {
    const tools: ToolSet = offline.aiSdkTools({ jsonSchema });
    expect(tool(tools.recall)).toBe(tools.recall);
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "no call" }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      },
    });
    await generateText({ model, tools, prompt: "hello" });
    const offered = model.doGenerateCalls[0].tools ?? [];
    expect(offered.map((offer) => offer.name)).toEqual(offline.toolNames);
    const recall = offered.find((offer) => offer.name === "recall");
    expect(recall && "inputSchema" in recall && recall.inputSchema).toEqual(
      selectToolSpecs({ names: ["recall"] })[0].input_schema,
    );
  });
});

describe("the agent toolkits' executor against a live server", () => {
  let server: LiveServer;
  let client: CairnClient;

  beforeAll(async () => {
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
    const anonymous = new CairnClient({ baseUrl: server.baseUrl });
    const { access_token } = await anonymous.signup(
      `toolkit-${crypto.randomUUID()}@example.com`,
      "sdk password 1",
    );
    const { key } = await anonymous.createApiKey(access_token, "toolkit test");
    client = new CairnClient({ baseUrl: server.baseUrl, apiKey: key });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  const answer = async (name: string, args: unknown) => {
    const result = await createCairnToolkit(client).run(name, args);
    expect(result.isError, result.content).toBe(false);
    return JSON.parse(result.content);
  };
  const refusal = async (name: string, args: unknown) => {
    const result = await createCairnToolkit(client).run(name, args);
    expect(result.isError, result.content).toBe(true);
    return JSON.parse(result.content).error;
  };

  it("runs memory tools as a model calls them, refusals as the REST error body", async () => {
    const stored = await answer(
      "remember",
      JSON.stringify({
        content: "The JS toolkit test likes oolong.",
        scope: null,
        kind: null,
        metadata: '{"a": 1}',
      }),
    );
    expect([stored.scope, stored.kind, stored.metadata]).toEqual(["default", "fact", { a: 1 }]);
    const found = await answer("recall", '{"query": "oolong", "scope": null, "limit": null}');
    expect(found.memories.map((memory: { id: string }) => memory.id)).toEqual([stored.id]);
    const empty = await refusal("recall", { query: "" });
    expect([empty.code, empty.details.map((detail: { loc: unknown }) => detail.loc)]).toEqual([
      "validation_error",
      [["query"]],
    ]);
    expect((await refusal("recall", { query: "x", q: "y" })).details[0].loc).toEqual(["q"]);
    expect((await refusal("no_such_tool", {})).code).toBe("not_found");
    expect(await answer("forget_memory", { memory_id: stored.id })).toEqual({
      status: "forgotten",
      id: stored.id,
    });
    const gone = await refusal("forget_memory", { memory_id: stored.id });
    expect([gone.code, gone.retryable]).toEqual(["memory_not_found", false]);
  });

  it("runs sandbox tools", async () => {
    const sandbox = await answer("create_sandbox", { label: "js toolkit", volume_mounts: null });
    try {
      await answer("file_create", { session_id: sandbox.id, path: "hi.sh", content: "echo $((6 * 7))\n" });
      const ran = await answer("exec", { session_id: sandbox.id, command: "sh hi.sh", timeout: null });
      expect([ran.exit_code, ran.stdout.trim()]).toEqual([0, "42"]);
      expect((await refusal("view", { session_id: sandbox.id, path: "/etc/passwd" })).code).toBe(
        "path_outside_sandbox",
      );
    } finally {
      expect(await answer("destroy_sandbox", { session_id: sandbox.id })).toEqual({
        status: "destroyed",
        id: sandbox.id,
      });
    }
  }, 60_000);

  it("runs a model's call in the AI SDK's tool loop", async () => {
    const toolkit = createCairnToolkit(client, { profile: "memory" });
    await toolkit.execute("remember", { content: "The AI SDK loop reaches Cairn." });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            {
              type: "tool-call",
              toolCallId: "call-1",
              toolName: "recall",
              input: '{"query": "AI SDK loop"}',
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const result = await generateText({
      model,
      tools: toolkit.aiSdkTools({ jsonSchema }),
      prompt: "What reaches Cairn?",
      stopWhen: isStepCount(2),
    });
    const output = result.steps[0].toolResults[0].output as { memories: Array<{ content: string }> };
    expect(output.memories[0].content).toBe("The AI SDK loop reaches Cairn.");
    expect(result.text).toBe("done");
  });
});
