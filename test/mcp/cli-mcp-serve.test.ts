/**
 * `cairn mcp serve` refuses bad configuration before serving anything: exit 1 and one clear line
 * on stderr, never a stack trace. Plain http is allowed for this machine only, by parsing the URL.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBaseUrl } from "../../cli/base-url.ts";
import { cliEntry, createAccount, type LiveServer, startLiveServer } from "./mcp-harness.ts";

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
