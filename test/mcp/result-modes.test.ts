/**
 * How a result travels (transports/mcp/profiles.ts): `both` by default (text and structured), the
 * JSON once for `?results=text` and `?results=structured`, and text alone for a client that
 * negotiated a protocol older than structured content. The official SDK client, which checks a
 * structured result against the tool's output schema, is served over the real app in-process.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "../../transports/mcp/http.ts";
import { createApp } from "../../transports/rest/create-app.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("MCP result modes", () => {
  let test: TestPlatform;
  let app: ReturnType<typeof createApp>;
  let close: () => Promise<void>;
  let key: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    const mcp = createMcpApp(test.platform, { clientIp: () => "203.0.113.9" });
    close = mcp.close;
    app = createApp(test.platform, { mounts: { "/mcp": mcp.app } });
    key = (await createAccountWithKey(test)).key;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await close();
    await test.close();
  });

  /** The SDK's client, its requests answered by the app in this process. */
  async function connect(results?: string): Promise<Client> {
    const url = new URL("http://127.0.0.1/mcp?tools=memory");
    if (results) url.searchParams.set("results", results);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: async (input, init) => app.request(String(input), init),
    });
    const client = new Client({ name: "result-modes", version: "1" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const remember = (client: Client, content: string) =>
    client.callTool({ name: "remember", arguments: { content } }) as Promise<{
      content: Array<{ type: string; text?: string }>;
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    }>;

  it("sends both by default, and lists no output schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.outputSchema === undefined && tool.title === undefined)).toBe(true);
    const result = await remember(client, "Both travel by default.");
    expect(result.structuredContent).toMatchObject({ content: "Both travel by default." });
    expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(result.structuredContent);
  });

  it("sends the JSON once as text with ?results=text", async () => {
    const client = await connect("text");
    const result = await remember(client, "Text alone.");
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(result.content[0]?.text ?? "")).toMatchObject({ content: "Text alone." });
  });

  it("sends the JSON once as structured content with ?results=structured, which the SDK checks against the listed output schema", async () => {
    const client = await connect("structured");
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.outputSchema?.type === "object")).toBe(true);
    // So are the display titles.
    expect(tools.find((tool) => tool.name === "recall")?.title).toBe("Recall memories");
    // callTool validates structuredContent against the tool's outputSchema and throws if it does not fit.
    const result = await remember(client, "Structured alone.");
    expect(result.content).toEqual([]);
    expect(result.structuredContent).toMatchObject({ content: "Structured alone." });
    const recalled = (await client.callTool({
      name: "recall",
      arguments: { query: "structured" },
    })) as unknown as {
      structuredContent: { memories: unknown[] };
    };
    expect(recalled.structuredContent.memories.length).toBeGreaterThan(0);
  });

  it("keeps a failure's text line and error object in every mode", async () => {
    for (const mode of ["text", "structured", "both"]) {
      const client = await connect(mode);
      const failed = (await client.callTool({ name: "forget_memory", arguments: { memory_id: "nope" } })) as {
        isError: boolean;
        content: Array<{ text: string }>;
        structuredContent: unknown;
      };
      expect([mode, failed.isError, failed.content[0]?.text]).toEqual([
        mode,
        true,
        expect.stringMatching(/^Memory error: .*\[(not_found|memory_not_found)\]/),
      ]);
      expect(failed.structuredContent).toMatchObject({ error: { code: expect.any(String) } });
    }
  });

  it("serves text alone to a client that negotiated a protocol before 2025-06-18", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      app.request("/mcp?tools=memory", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "memory_profile", arguments: {} },
    };
    const old = await (await post(call, { "mcp-protocol-version": "2025-03-26" })).json();
    expect(old.result.structuredContent).toBeUndefined();
    expect(JSON.parse(old.result.content[0].text)).toHaveProperty("static");
    const current = await (await post(call, { "mcp-protocol-version": "2025-06-18" })).json();
    expect(current.result.structuredContent).toHaveProperty("static");
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} };
    const structuredList = await (await post(list, { "mcp-protocol-version": "2025-03-26" })).json();
    expect(structuredList.result.tools[0]).not.toHaveProperty("outputSchema");
  });

  it("refuses an unknown ?results= naming the modes", async () => {
    const response = await app.request("/mcp?results=yaml", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: {
        code: -32602,
        data: { details: [{ loc: ["query", "results"], msg: "Must be one of both, text, structured" }] },
      },
    });
  });
});
