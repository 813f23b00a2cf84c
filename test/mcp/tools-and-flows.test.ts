/**
 * The MCP server as an agent meets it, through the SDK's own client, over HTTP against a live
 * server and over stdio through the real `cairn mcp serve`: the same tools, the memory loop and
 * the sandbox loop, tool profiles, and failures as isError results.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../core/index.ts";
import { mcpTools } from "../../transports/mcp/tools.ts";
import {
  builtToolNames,
  contractToolNames,
  createAccount,
  type LiveServer,
  memoryToolNames,
  startLiveServer,
  structured,
  transports,
} from "./mcp-harness.ts";

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

describe.each(transports)("over $name", ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    const account = await createAccount(server.baseUrl);
    client = await connect(server.baseUrl, account.key);
  });
  afterAll(() => client.close());

  it("is the cairn server with the package version and the usage instructions", () => {
    expect(client.getServerVersion()).toEqual({ name: "cairn", version });
    expect(client.getInstructions()).toMatch(/call recall and memory_profile early/);
    expect(client.getInstructions()).toMatch(/call create_sandbox first/);
  });

  it("lists exactly the registry's MCP operations: the 31 core tools and the 6 background-process tools", async () => {
    const { tools } = await client.listTools();
    const listed = tools.map((tool) => tool.name);
    expect(listed).toEqual(mcpTools().map((tool) => tool.name));
    for (const name of listed) expect(builtToolNames).toContain(name);
    expect([...listed].sort()).toEqual([...builtToolNames].sort());
    // Every core tool is built and listed (31), and so is each process tool (6).
    expect(listed.filter((name) => (contractToolNames as readonly string[]).includes(name))).toHaveLength(31);
    expect(listed).toHaveLength(builtToolNames.length);
    for (const tool of tools) {
      // Titles, for a display, go to `?results=structured` connections only (result-modes.test.ts).
      expect(tool.title, tool.name).toBeUndefined();
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe("object");
      // Output schemas go to `?results=structured` connections only (test/mcp/result-modes.test.ts).
      expect(tool.outputSchema, tool.name).toBeUndefined();
    }
    const recall = tools.find((tool) => tool.name === "recall");
    expect(Object.keys(recall?.inputSchema.properties ?? {}).sort()).toEqual(["limit", "query", "scope"]);
    expect(recall?.inputSchema.properties?.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50 });
    // Omitted, recall searches every scope (CONTRACT §3), so the schema names no default.
    expect(recall?.inputSchema.properties?.scope).not.toHaveProperty("default");
    expect(recall?.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of tools)
      expect(tool.inputSchema, tool.name).toMatchObject({ additionalProperties: false });
    const create = tools.find((tool) => tool.name === "create_sandbox");
    expect(Object.keys(create?.inputSchema.properties ?? {})).not.toContain("secret_names");
  });

  it("remembers, recalls, profiles and forgets", async () => {
    const remembered = structured<{ id: string; scope: string; kind: string }>(
      await client.callTool({
        name: "remember",
        arguments: { content: "The staging database is PostgreSQL 15.", kind: "fact" },
      }),
      "remember",
    );
    expect(remembered).toMatchObject({ scope: "default", kind: "fact" });
    const recalled = structured<{ memories: Array<{ id: string; score: number }> }>(
      await client.callTool({ name: "recall", arguments: { query: "staging database" } }),
      "recall",
    );
    expect(recalled.memories[0]).toMatchObject({ id: remembered.id });
    expect(recalled.memories[0].score).toBeGreaterThan(0);
    // Omitted or null, the scope is every scope on MCP as on REST; a named one narrows.
    const elsewhere = structured<{ id: string }>(
      await client.callTool({
        name: "remember",
        arguments: { content: "The staging cache is Redis 7.", kind: "fact", scope: "ops-notes" },
      }),
      "remember",
    );
    for (const scope of [undefined, null]) {
      const found = structured<{ memories: Array<{ id: string }> }>(
        await client.callTool({ name: "recall", arguments: { query: "staging cache Redis", scope } }),
        "recall",
      );
      expect(found.memories.map((memory) => memory.id)).toContain(elsewhere.id);
      const profile = structured<{ static: Array<{ id: string }>; dynamic: Array<{ id: string }> }>(
        await client.callTool({ name: "memory_profile", arguments: { scope } }),
        "memory_profile",
      );
      expect([...profile.static, ...profile.dynamic].map((memory) => memory.id)).toContain(elsewhere.id);
    }
    const narrowed = structured<{ memories: Array<{ id: string }> }>(
      await client.callTool({
        name: "recall",
        arguments: { query: "staging cache Redis", scope: "default" },
      }),
      "recall",
    );
    expect(narrowed.memories.map((memory) => memory.id)).not.toContain(elsewhere.id);
    const profile = structured<{ static: Array<{ id: string }> }>(
      await client.callTool({ name: "memory_profile", arguments: {} }),
      "memory_profile",
    );
    expect(profile.static.map((memory) => memory.id)).toContain(remembered.id);
    const forgotten = structured(
      await client.callTool({ name: "forget_memory", arguments: { memory_id: remembered.id } }),
      "forget_memory",
    );
    expect(forgotten).toEqual({ status: "forgotten", id: remembered.id });
    const after = structured<{ memories: Array<{ id: string }> }>(
      await client.callTool({ name: "recall", arguments: { query: "staging database" } }),
    );
    expect(after.memories.map((memory) => memory.id)).not.toContain(remembered.id);
  });

  it("creates a sandbox, runs a command, writes, edits and reads a file, and destroys it", async () => {
    // secret_names is not a tool argument (a model does not grant secrets): refused by name.
    const withSecrets = await client.callTool({
      name: "create_sandbox",
      arguments: { label: "mcp test", secret_names: ["db-password"] },
    });
    expect(withSecrets).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: "validation_error", details: [{ loc: ["arguments", "secret_names"] }] },
      },
    });
    const sandbox = structured<{ id: string; status: string }>(
      await client.callTool({ name: "create_sandbox", arguments: { label: "mcp test" } }),
      "create_sandbox",
    );
    expect(sandbox.status).toBe("active");
    const session_id = sandbox.id;
    const ran = structured<{ exit_code: number; stdout: string }>(
      await client.callTool({ name: "exec", arguments: { session_id, command: "echo 42" } }),
      "exec",
    );
    expect(ran).toMatchObject({ exit_code: 0, stdout: "42\n" });
    structured(
      await client.callTool({
        name: "file_create",
        arguments: { session_id, path: "notes.txt", content: "hello world\n" },
      }),
      "file_create",
    );
    const replaced = structured<{ replaced: number }>(
      await client.callTool({
        name: "str_replace",
        arguments: { session_id, path: "notes.txt", old_str: "world", new_str: "agents" },
      }),
      "str_replace",
    );
    expect(replaced.replaced).toBe(1);
    const viewed = structured<{ content: string }>(
      await client.callTool({ name: "view", arguments: { session_id, path: "notes.txt" } }),
      "view",
    );
    expect(viewed.content).toContain("hello agents");
    // An invalid pattern is a 200 with `error` on REST; to a model it is a failed call.
    const badPattern = await client.callTool({
      name: "grep",
      arguments: { session_id, pattern: "hello(?=agents)" },
    });
    expect(badPattern.isError).toBe(true);
    expect((badPattern.content as Array<{ text: string }>)[0].text).toMatch(
      /^Error grep: invalid regular expression: .*lookahead/,
    );
    expect(badPattern.structuredContent).toMatchObject({ matches: [], error: expect.any(String) });
    const found = structured<{ matches: unknown[]; error: string | null }>(
      await client.callTool({ name: "grep", arguments: { session_id, pattern: "hello" } }),
      "grep",
    );
    expect([found.matches.length > 0, found.error]).toEqual([true, null]);

    // A check a handler makes names the tool's argument too, as a schema's does.
    const badPath = await client.callTool({
      name: "file_create",
      arguments: { session_id, path: "a\u0000b", content: "x" },
    });
    expect(badPath.isError).toBe(true);
    expect(badPath.structuredContent).toMatchObject({
      error: { code: "validation_error", details: [expect.objectContaining({ loc: ["arguments", "path"] })] },
    });
    // A big file comes back within the tool's default budget (32 KiB), a marker saying what was
    // cut; a result over 4 MiB, asked for with a larger budget, is refused (it would travel twice
    // in one message, past what stdio clients accept); a line range of the same file is not.
    structured(
      await client.callTool({
        name: "exec",
        arguments: { session_id, command: "yes 0123456789abcdef | head -c 5000000 > big.txt" },
      }),
      "exec",
    );
    const budgeted = structured<{ content: string; truncated: boolean; omitted_bytes: number }>(
      await client.callTool({ name: "view", arguments: { session_id, path: "big.txt" } }),
      "view",
    );
    expect([budgeted.truncated, budgeted.omitted_bytes]).toEqual([true, 5_000_000 - 32 * 1024]);
    expect(budgeted.content).toContain(
      "\n… [cut 4,967,232 bytes, in lines 1928–294118; view them with view_range",
    );
    const big = await client.callTool({
      name: "view",
      arguments: { session_id, path: "big.txt", max_output_bytes: 5_000_000 },
    });
    expect(big.isError).toBe(true);
    expect((big.content as Array<{ text: string }>)[0].text).toMatch(
      /^Error view: The result is 5\.0 MiB, more than a tool result carries \(4 MiB\) \[payload_too_large\]/,
    );
    expect(big.structuredContent).toMatchObject({
      error: { remediation: expect.stringContaining("view_range") },
    });
    const range = structured<{ content: string }>(
      await client.callTool({ name: "view", arguments: { session_id, path: "big.txt", view_range: [1, 2] } }),
      "view",
    );
    expect(range.content).toContain("0123456789abcdef");
    const destroyed = structured(
      await client.callTool({ name: "destroy_sandbox", arguments: { session_id } }),
      "destroy_sandbox",
    );
    expect(destroyed).toEqual({ status: "destroyed", id: session_id });
    const late = await client.callTool({ name: "exec", arguments: { session_id, command: "echo 42" } });
    expect(late.isError).toBe(true);
    expect(late.content).toEqual([
      { type: "text", text: expect.stringMatching(/^Error exec: .*\[not_found\] \(HTTP 404\)$/) },
    ]);
    expect(late.structuredContent).toMatchObject({ error: { code: "not_found", retryable: false } });
  });

  it("answers a failed memory call with Memory error text and the error envelope; only an unknown tool is a protocol error (-32602)", async () => {
    const failed = await client.callTool({ name: "recall", arguments: { query: "" } });
    expect(failed.isError).toBe(true);
    expect((failed.content as Array<{ text: string }>)[0].text).toMatch(
      /^Memory error: Invalid request \(query: Too small: expected string to have >=1 characters\) \[validation_error\]/,
    );
    expect(failed.structuredContent).toMatchObject({
      error: {
        code: "validation_error",
        details: [expect.objectContaining({ loc: ["arguments", "query"] })],
      },
    });
    const missing = await client.callTool({
      name: "forget_memory",
      arguments: { memory_id: crypto.randomUUID() },
    });
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "memory_not_found" } },
    });
    // An argument the tool does not take is refused by name, not dropped; gpu_count says why.
    const misspelled = await client.callTool({ name: "recall", arguments: { querry: "x", query: "x" } });
    expect(misspelled).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: "validation_error",
          details: [
            {
              type: "unknown_argument",
              loc: ["arguments", "querry"],
              msg: 'recall takes no argument "querry"; it takes query, scope, limit',
            },
          ],
        },
      },
    });
    const gpu = await client.callTool({ name: "create_sandbox", arguments: { gpu_count: 1 } });
    expect(gpu).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          details: [
            {
              loc: ["arguments", "gpu_count"],
              msg: "GPUs are not offered: Cairn's sandboxes have CPUs only",
            },
          ],
        },
      },
    });
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: "MCP error -32602: Unknown tool: no_such_tool; tools/list names the tools this server offers",
    });
  });
});

describe.each(transports)("tool profiles over $name", ({ connect }) => {
  it("memory lists the 5 memory tools; sandbox lists the rest", async () => {
    const account = await createAccount(server.baseUrl);
    const memory = await connect(server.baseUrl, account.key, "memory");
    const sandbox = await connect(server.baseUrl, account.key, "sandbox");
    try {
      expect((await memory.listTools()).tools.map((tool) => tool.name)).toEqual(memoryToolNames);
      const sandboxNames = (await sandbox.listTools()).tools.map((tool) => tool.name);
      expect(sandboxNames).toEqual(
        mcpTools()
          .map((tool) => tool.name)
          .filter((name) => !memoryToolNames.includes(name)),
      );
      // A tool outside the profile is not callable through it either: to it, the tool does not exist.
      await expect(memory.callTool({ name: "exec", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await memory.close();
      await sandbox.close();
    }
  });
});
