/**
 * One scenario table run through every way in: the in-process caller, REST and MCP (the SDK's
 * client, its HTTP requests answered by the app in process). Each adapter turns a row into its
 * own wire format and back, so a row holds only operation names, inputs and expectations; a
 * transport that renders a result or an error differently fails the row. Then: REST and MCP
 * calls of one account drain one rate-limit bucket.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OperationName, registry, ServiceError } from "../../core/index.ts";
import { httpStatus } from "../../transports/http-status.ts";
import { mcpTools } from "../../transports/mcp/tools.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

type Outcome = { output: unknown } | { error: { code: string; status: number } };

interface Adapter {
  name: string;
  run(operation: OperationName, input: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

const unknownId = "00000000-0000-4000-8000-000000000000";

/** Rows run in order on one fresh account per adapter; `expect` sees the operation's own output. */
const scenarios: Array<{
  name: string;
  operation: OperationName;
  input: Record<string, unknown>;
  expect: (outcome: Outcome) => void;
}> = [
  {
    name: "remember stores a fact in the default scope",
    operation: "remember",
    input: { content: "The build server runs Debian 12 with PostgreSQL 15." },
    expect: (outcome) => expect(outcome).toMatchObject({ output: { kind: "fact", scope: "default" } }),
  },
  {
    name: "remember refuses empty content",
    operation: "remember",
    input: { content: "" },
    expect: (outcome) => expect(outcome).toEqual({ error: { code: "validation_error", status: 422 } }),
  },
  {
    name: "recall finds it",
    operation: "recall",
    input: { q: "build server PostgreSQL", scope: "default" },
    expect: (outcome) =>
      expect(outcome).toMatchObject({
        output: { memories: [{ content: expect.stringContaining("Debian 12") }] },
      }),
  },
  {
    name: "recall refuses a limit above 50",
    operation: "recall",
    input: { q: "build", limit: 51 },
    expect: (outcome) => expect(outcome).toEqual({ error: { code: "validation_error", status: 422 } }),
  },
  {
    name: "memory_profile shows it as stable knowledge",
    operation: "memory_profile",
    input: { scope: "default" },
    expect: (outcome) =>
      expect(outcome).toMatchObject({ output: { static: [{ kind: "fact" }], dynamic: [] } }),
  },
  {
    name: "forget_memory of an unknown id",
    operation: "forget_memory",
    input: { memory_id: unknownId },
    expect: (outcome) => expect(outcome).toEqual({ error: { code: "memory_not_found", status: 404 } }),
  },
  {
    name: "list_sandboxes is empty",
    operation: "list_sandboxes",
    input: {},
    expect: (outcome) => expect(outcome).toEqual({ output: [] }),
  },
  {
    name: "create_sandbox over the size limit is a quota refusal",
    operation: "create_sandbox",
    input: { size: "large" },
    expect: (outcome) =>
      expect(outcome).toEqual({ error: { code: "sandbox_size_limit_reached", status: 429 } }),
  },
  {
    name: "exec in a sandbox that does not exist",
    operation: "exec",
    input: { session_id: unknownId, command: "echo 42" },
    expect: (outcome) => expect(outcome).toEqual({ error: { code: "not_found", status: 404 } }),
  },
  {
    name: "destroy_sandbox of a sandbox that does not exist",
    operation: "destroy_sandbox",
    input: { session_id: unknownId },
    expect: (outcome) => expect(outcome).toEqual({ error: { code: "not_found", status: 404 } }),
  },
];

function callerAdapter(test: TestPlatform, key: string): Adapter {
  return {
    name: "in-process caller",
    async run(operation, input) {
      try {
        return { output: await test.call(operation, input as never, { credential: key }) };
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        return { error: { code: error.code, status: httpStatus(error.code) } };
      }
    },
    close: async () => {},
  };
}

function restAdapter(test: TestPlatform, key: string): Adapter {
  return {
    name: "REST",
    async run(operation, input) {
      const { http } = registry[operation];
      if (!http) throw new Error(`${operation} has no REST route`);
      const rest = { ...input };
      const path = http.path.replace(/:([a-z_]+)/g, (_match, name: string) => {
        const value = String(rest[name]);
        delete rest[name];
        return encodeURIComponent(value);
      });
      const query = http.method === "GET" || http.method === "DELETE";
      const url = query ? `${path}?${new URLSearchParams(rest as Record<string, string>)}` : path;
      const response = await test.request(url, {
        method: http.method,
        credential: key,
        ...(query ? {} : { json: rest }),
      });
      if (response.status >= 400) {
        const body = (await response.json()) as { error: { code: string } };
        return { error: { code: body.error.code, status: response.status } };
      }
      return { output: response.status === 204 ? null : await response.json() };
    },
    close: async () => {},
  };
}

async function mcpAdapter(test: TestPlatform, key: string): Promise<Adapter> {
  const client = new Client({ name: "scenario", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://cairn.test/mcp"), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: (url, init) => Promise.resolve(test.app.request(String(url), init as RequestInit)),
    }),
  );
  return {
    name: "MCP",
    async run(operation, input) {
      const tool = mcpTools().find((candidate) => candidate.operation.name === operation);
      if (!tool) throw new Error(`${operation} is not an MCP tool`);
      const binding = tool.operation.mcp ?? {};
      const args = Object.fromEntries(
        Object.entries(input).map(([field, value]) => [binding.rename?.[field] ?? field, value]),
      );
      const result = await client.callTool({ name: tool.name, arguments: args });
      const content = result.structuredContent as Record<string, unknown>;
      if (result.isError) {
        const text = (result.content as Array<{ text: string }>)[0].text;
        const status = Number(text.match(/\(HTTP (\d+)\)$/)?.[1]);
        return { error: { code: (content.error as { code: string }).code, status } };
      }
      // Back to the operation's own output, by the one rule for non-object results.
      if (binding.done) return { output: null };
      if (Array.isArray(content.items) && Object.keys(content).length === 1) return { output: content.items };
      return { output: content };
    },
    close: () => client.close(),
  };
}

describe("one scenario table through every transport", () => {
  let test: TestPlatform;
  const adapters: Adapter[] = [];
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    const key = async () => (await createAccountWithKey(test)).key;
    adapters.push(
      callerAdapter(test, await key()),
      restAdapter(test, await key()),
      await mcpAdapter(test, await key()),
    );
  });
  afterAll(async () => {
    for (const adapter of adapters) await adapter.close();
    await test.close();
  });

  for (const transport of ["in-process caller", "REST", "MCP"]) {
    it(`${transport}: every row`, async () => {
      const adapter = adapters.find((candidate) => candidate.name === transport) as Adapter;
      for (const scenario of scenarios) {
        const outcome = await adapter.run(scenario.operation, scenario.input);
        try {
          scenario.expect(outcome);
        } catch (error) {
          throw new Error(`${transport} / ${scenario.name}: ${(error as Error).message}`);
        }
      }
    });
  }
});

describe("REST and MCP share the rate-limit buckets", () => {
  it("one account's REST and MCP memory writes drain one memory_ops bucket", async () => {
    const clock = createFakeClock();
    const test = await createTestPlatform("sqlite", {
      clock,
      environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "4" },
    });
    try {
      const { key } = await createAccountWithKey(test);
      const rest = restAdapter(test, key);
      const mcp = await mcpAdapter(test, key);
      expect(await rest.run("remember", { content: "First REST write." })).toHaveProperty("output");
      expect(await mcp.run("remember", { content: "First MCP write." })).toHaveProperty("output");
      expect(await rest.run("remember", { content: "Second REST write." })).toHaveProperty("output");
      const lastToken = await test.request("/v1/memory", {
        method: "POST",
        credential: key,
        json: { content: "Third REST write." },
      });
      expect(lastToken.headers.get("X-RateLimit-Remaining")).toBe("0");
      expect(await mcp.run("remember", { content: "Second MCP write." })).toEqual({
        error: { code: "rate_limited", status: 429 },
      });
      expect(await rest.run("remember", { content: "Fourth REST write." })).toEqual({
        error: { code: "rate_limited", status: 429 },
      });
      // The in-process caller is a third door to the same bucket.
      await expect(
        test.call("remember", { content: "In process." }, { credential: key }),
      ).rejects.toMatchObject({
        code: "rate_limited",
      });
      await mcp.close();
    } finally {
      await test.close();
    }
  });
});
