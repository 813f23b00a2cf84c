/**
 * `cairn mcp serve` refuses bad configuration before serving anything: exit 1 and one clear line
 * on stderr, never a stack trace. Plain http is allowed for this machine only, by parsing the URL.
 */
import { spawn } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBaseUrl } from "../../cli/base-url.ts";
import {
  cliEntry,
  connectHttp,
  connectStdio,
  createAccount,
  jsonRpcLines,
  type LiveServer,
  startLiveServer,
  structured,
} from "./mcp-harness.ts";

function runCli(args: string[], environment: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cliEntry, ...args], {
      env: { PATH: process.env.PATH ?? "", ...environment },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end();
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function expectOneLine(result: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr.split("\n").filter(Boolean)).toEqual([expect.stringMatching(pattern)]);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

describe("the base URL rule", () => {
  it.each([
    ["https://cairn.example.com", "https://cairn.example.com"],
    ["https://cairn.example.com/", "https://cairn.example.com"],
    ["http://localhost:8090", "http://localhost:8090"],
    ["http://127.0.0.1:8090/", "http://127.0.0.1:8090"],
  ])("accepts %s", (text, url) => {
    expect(checkBaseUrl(text)).toEqual({ url });
  });

  it.each([
    "http://cairn.example.com",
    "http://localhost.attacker.example",
    "http://127.0.0.1.attacker.example",
    "http://localhost@attacker.example",
    "http://user:pass@localhost:8090",
    "ftp://localhost",
    "javascript:alert(1)",
    "localhost:8090",
    "not a url",
    "https://cairn.example.com/?token=x",
  ])("refuses %s", (text) => {
    expect(checkBaseUrl(text)).toHaveProperty("problem");
  });
});

describe("cairn mcp serve configuration errors", () => {
  it("refuses plain http to another host", async () => {
    const result = await runCli(["mcp", "serve"], {
      CAIRN_BASE_URL: "http://cairn.example.com",
      CAIRN_API_KEY: "x",
    });
    expectOneLine(result, /^cairn: CAIRN_BASE_URL must use https/);
  });

  it("refuses a URL that is not one", async () => {
    const result = await runCli(["mcp", "serve"], { CAIRN_BASE_URL: "::nope::", CAIRN_API_KEY: "x" });
    expectOneLine(result, /^cairn: CAIRN_BASE_URL is not a URL/);
  });

  it("refuses a missing key", async () => {
    const result = await runCli(["mcp", "serve"], { CAIRN_BASE_URL: server.baseUrl });
    expectOneLine(result, /^cairn: CAIRN_API_KEY is not set/);
  });

  it("refuses a key reference its MCP client left unfilled (an unset variable in .mcp.json)", async () => {
    const result = await runCli(["mcp", "serve"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: `\${CAIRN_API_KEY}`,
    });
    expectOneLine(
      result,
      /^cairn: CAIRN_API_KEY is \$\{CAIRN_API_KEY\}, a reference your MCP client did not fill in: set CAIRN_API_KEY/,
    );
  });

  it("refuses an unknown --results naming the modes", async () => {
    const result = await runCli(["mcp", "serve", "--results", "yaml"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: "x",
    });
    expectOneLine(result, /^cairn: --results must be one of both, text, structured, not "yaml"$/);
  });

  it("refuses a tool profile that is neither a fixed one nor a plugin's name", async () => {
    const result = await runCli(["mcp", "serve", "--tools", "Everything!"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: "x",
    });
    expectOneLine(result, /^cairn: --tools must be one of all, memory, sandbox, or a plugin's name/);
  });

  it("reports a plugin the server has not loaded in one line, with the profiles it has", async () => {
    const account = await createAccount(server.baseUrl);
    const result = await runCli(["mcp", "serve", "--tools", "everything"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: account.key,
    });
    expectOneLine(
      result,
      /^cairn: cannot connect .*: the server refused: .*\(Must be one of all, memory, sandbox\) \[validation_error\]$/,
    );
  });

  it("reports the server's refusal of a key in one line", async () => {
    const account = await createAccount(server.baseUrl);
    const result = await runCli(["mcp", "serve"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: account.token,
    });
    expectOneLine(result, /^cairn: cannot connect .*: the server refused: .*\[wrong_credential_type\]$/);
  });

  it("reports an unreachable server in one line", async () => {
    const result = await runCli(["mcp", "serve"], {
      CAIRN_BASE_URL: "http://127.0.0.1:9",
      CAIRN_API_KEY: "x",
    });
    expectOneLine(result, /^cairn: cannot connect to the Cairn MCP server at http:\/\/127\.0\.0\.1:9\/mcp/);
  });

  it("prints usage for an unknown command, with exit 2", async () => {
    const result = await runCli(["serve"], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^cairn: unknown command: serve\nUsage: cairn mcp serve/);
  });
});

describe("cairn mcp serve once running", () => {
  it("ends its upstream session and exits 0 when the client closes stdin", async () => {
    const account = await createAccount(server.baseUrl);
    // runCli closes stdin at once: the proxy connects upstream, serves, sees the end and exits.
    const result = await runCli(["mcp", "serve"], {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: account.key,
    });
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
  }, 30_000);

  it("opens a new upstream session when the server has ended its own, and serves on", async () => {
    const account = await createAccount(server.baseUrl);
    const stdio = await connectStdio(server.baseUrl, account.key, "memory");
    const opened: Client[] = [];
    try {
      structured(await stdio.callTool({ name: "memory_profile", arguments: { limit: 1 } }), "memory_profile");
      // An account holds at most 32 sessions: 32 more close the proxy's, as a restart or an idle
      // hour would.
      for (let index = 0; index < 32; index++)
        opened.push(await connectHttp(server.baseUrl, account.key, "memory"));
      structured(await stdio.callTool({ name: "memory_profile", arguments: { limit: 1 } }), "memory_profile");
      expect((await stdio.listTools()).tools).toHaveLength(5);
    } finally {
      await Promise.all([stdio, ...opened].map((client) => client.close()));
    }
  }, 60_000);

  it("takes a message past the SDK's 10 MiB line, and words the server's refusal of a too-large body as a failed call", async () => {
    const account = await createAccount(server.baseUrl);
    const stdio = await connectStdio(server.baseUrl, account.key, "sandbox");
    try {
      const sandbox = structured<{ id: string }>(
        await stdio.callTool({ name: "create_sandbox", arguments: {} }),
      );
      const session_id = sandbox.id;
      // 10 Mi characters, the schema's limit: over 10 MiB as a JSON-RPC line, under the body limit.
      const created = structured<{ size: number }>(
        await stdio.callTool({
          name: "file_create",
          arguments: { session_id, path: "max.txt", content: "a".repeat(10 * 1024 * 1024) },
        }),
      );
      expect(created.size).toBe(10 * 1024 * 1024);
      // Within the schema's characters but 18 MiB of UTF-8: the server's HTTP limit refuses it.
      const refused = await stdio.callTool({
        name: "file_create",
        arguments: { session_id, path: "wide.txt", content: "é".repeat(9 * 1024 * 1024) },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0].text).toMatch(
        /^Error file_create: .* \[payload_too_large\] \(HTTP 413\)$/,
      );
      expect(refused.structuredContent).toMatchObject({ error: { code: "payload_too_large" } });
      structured(await stdio.callTool({ name: "destroy_sandbox", arguments: { session_id } }));
    } finally {
      await stdio.close();
    }
  }, 120_000);
});

describe("cairn mcp serve and malformed requests", () => {
  it("answers a malformed tools/call with -32602 Invalid params, and serves on", async () => {
    const account = await createAccount(server.baseUrl);
    const child = spawn(process.execPath, [cliEntry, "mcp", "serve", "--tools", "memory"], {
      env: { PATH: process.env.PATH ?? "", CAIRN_BASE_URL: server.baseUrl, CAIRN_API_KEY: account.key },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const { send, answer } = jsonRpcLines(child);
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      });
      expect(await answer(1)).toHaveProperty("result");
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "recall", arguments: "hello" } });
      expect((await answer(2))?.error?.code).toBe(-32602);
      send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "memory_profile", arguments: {} },
      });
      expect(await answer(3)).toMatchObject({ result: { structuredContent: { static: [], dynamic: [] } } });
    } finally {
      child.kill();
    }
  }, 30_000);
});
