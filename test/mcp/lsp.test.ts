/**
 * The language-server tools as an agent meets them, through the SDK's own client over HTTP and
 * over stdio (`cairn mcp serve`) against a live server with real local sandboxes: their
 * arguments, a TypeScript completion whose items carry kind names, failures as isError results
 * with the REST envelope, and the four tools gone when SVC_LSP_ENABLED=false.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtToolNames,
  connectHttp,
  createAccount,
  type LiveServer,
  startLiveServer,
  structured,
  transports,
} from "./mcp-harness.ts";

const lspTools = ["lsp_start", "lsp_open", "lsp_completion", "lsp_stop"];

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

describe.each(transports)("language-server tools over $name", ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    const account = await createAccount(server.baseUrl);
    client = await connect(server.baseUrl, account.key);
  });
  afterAll(() => client.close());

  it("lists the four tools with their documented arguments", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const argumentsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argumentsOf("lsp_start")).toEqual(["language", "session_id"]);
    expect(argumentsOf("lsp_open")).toEqual(["content", "lsp_id", "path", "session_id"]);
    expect(argumentsOf("lsp_completion")).toEqual(["character", "line", "lsp_id", "path", "session_id"]);
    expect(argumentsOf("lsp_stop")).toEqual(["lsp_id", "session_id"]);
    expect(byName.get("lsp_completion")?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("starts a TypeScript server, completes with kind names and stops it", { timeout: 120_000 }, async () => {
    const call = async <T>(name: string, args: Record<string, unknown>) =>
      structured<T>(await client.callTool({ name, arguments: args }), name);
    const { id: session_id } = await call<{ id: string }>("create_sandbox", {});
    const { lsp_id } = await call<{ lsp_id: string }>("lsp_start", { session_id, language: "typescript" });
    expect(lsp_id).toMatch(/^lsp_[0-9a-f]{32}$/);
    const path = "main.ts";
    expect(await call("lsp_open", { session_id, lsp_id, path, content: 'const s = "x"; s.' })).toEqual({
      status: "opened",
    });
    const { items } = await call<{ items: Array<{ label: string; kind: unknown }> }>("lsp_completion", {
      session_id,
      lsp_id,
      path,
      line: 0,
      character: 17,
    });
    expect(items.find((item) => item.label === "toUpperCase")?.kind).toBe("Method");
    expect(items.every((item) => typeof item.kind === "string" || item.kind === undefined)).toBe(true);
    expect(await call("lsp_stop", { session_id, lsp_id })).toEqual({ status: "stopped" });
    const gone = await client.callTool({ name: "lsp_stop", arguments: { session_id, lsp_id } });
    expect(gone).toMatchObject({ isError: true, structuredContent: { error: { code: "not_found" } } });
    const unknown = await client.callTool({
      name: "lsp_start",
      arguments: { session_id, language: "cobol" },
    });
    expect(unknown).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "validation_error" } },
    });
    await call("destroy_sandbox", { session_id });
  });
});

describe("with SVC_LSP_ENABLED=false", () => {
  let off: LiveServer;
  beforeAll(async () => {
    off = await startLiveServer({ SVC_LSP_ENABLED: "false" });
  });
  afterAll(() => off.close());

  it("drops the four language-server tools and keeps the rest; the routes are 404", async () => {
    const account = await createAccount(off.baseUrl);
    const client = await connectHttp(off.baseUrl, account.key);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect([...names].sort()).toEqual(builtToolNames.filter((name) => !lspTools.includes(name)).sort());
      // A tool the server does not offer is unknown to it: a protocol error, not a failed call.
      await expect(
        client.callTool({ name: "lsp_start", arguments: { session_id: "x", language: "python" } }),
      ).rejects.toMatchObject({ code: -32602 });
      const rest = await fetch(`${off.baseUrl}/v1/sandboxes/${crypto.randomUUID()}/lsp/start`, {
        method: "POST",
        headers: { Authorization: `Bearer ${account.key}`, "content-type": "application/json" },
        body: JSON.stringify({ language: "python" }),
      });
      expect([rest.status, ((await rest.json()) as { error: { code: string } }).error.code]).toEqual([
        404,
        "not_found",
      ]);
    } finally {
      await client.close();
    }
  });
});
