/**
 * The CLI's accounts and settings against a live server: signup and login through prompts on
 * stdin, the saved config (0600 in a 0700 folder), the environment overriding it, whoami, keys,
 * and the exit code of each error class.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import {
  type CliHome,
  createHome,
  expectFailure,
  newEmail,
  password,
  runCairn,
  runJson,
  runOk,
  signUpThroughCli,
} from "./cli-harness.ts";

let server: LiveServer;
const homes: CliHome[] = [];
async function home() {
  const created = await createHome();
  homes.push(created);
  return created;
}

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
});
afterAll(async () => {
  await server.close();
  await Promise.all(homes.map((created) => created.remove()));
});

describe("signup and login", () => {
  it("signs up with answers on stdin and saves the URL and a key, 0600 in a 0700 folder", async () => {
    const cli = await home();
    const email = newEmail();
    const result = await runOk(["signup", "--url", server.baseUrl], {
      env: cli.environment(),
      input: `${email}\n${password}\n${password}\n`,
    });
    expect(result.stderr).toContain("Email:");
    expect(result.stderr).toContain("Confirm password:");
    expect(result.stderr).not.toContain(password);
    expect(result.stdout).toContain(`Signed up as ${email}`);
    const saved = parse(await readFile(cli.configFile, "utf8"));
    expect(saved.base_url).toBe(server.baseUrl);
    expect(saved.api_key).toMatch(/^cairn_[0-9A-Za-z]{38}$/);
    expect((await stat(cli.configFile)).mode & 0o777).toBe(0o600);
    expect((await stat(`${cli.configHome}/cairn`)).mode & 0o777).toBe(0o700);
    // The printed key is masked: never the whole key on the terminal.
    expect(result.stdout).not.toContain(saved.api_key as string);

    const whoami = await runJson<{
      account: { email: string };
      usage: { concurrent_sandboxes_limit: number };
    }>(["whoami"], {
      env: cli.environment(),
    });
    expect(whoami.account.email).toBe(email);
    expect(whoami.usage.concurrent_sandboxes_limit).toBeGreaterThan(0);
    const human = await runOk(["whoami"], { env: cli.environment() });
    expect(human.stdout).toMatch(/Email:\s+/);
    expect(human.stdout).toMatch(/Active sandboxes:\s+0 of \d+/);
  });

  it("refuses a confirmation that does not match, before any request (exit 2)", async () => {
    const cli = await home();
    const result = await runCairn(["signup", "--url", server.baseUrl], {
      env: cli.environment(),
      input: `${newEmail()}\n${password}\nsomething else\n`,
    });
    expectFailure(result, 2, "validation_error");
    await expect(stat(cli.configFile)).rejects.toThrow();
  });

  it("refuses a password the server's schema refuses, naming it (exit 2)", async () => {
    const cli = await home();
    const result = await runCairn(
      ["signup", "--url", server.baseUrl, "--email", newEmail(), "--password", "short"],
      {
        env: cli.environment(),
      },
    );
    expectFailure(result, 2, "validation_error");
    expect(result.stderr).toMatch(/--password/);
  });

  it("stops when stdin ends before an answer (exit 2)", async () => {
    const cli = await home();
    const result = await runCairn(["login", "--url", server.baseUrl], {
      env: cli.environment(),
      input: "only@example.com\n",
    });
    expectFailure(result, 2, "missing_input");
  });

  it("answers a taken email with exit 6 and a wrong password with exit 3", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const again = await runCairn(
      ["signup", "--email", email, "--password", password, "--url", server.baseUrl],
      {
        env: cli.environment(),
      },
    );
    expectFailure(again, 6, "email_taken");
    const wrong = await runCairn(["login", "--url", server.baseUrl], {
      env: cli.environment(),
      input: `${email}\nnot the password\n`,
    });
    expectFailure(wrong, 3, "invalid_credentials");
  });

  it("logs in with flags and a key name, replacing the saved key", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const before = parse(await readFile(cli.configFile, "utf8")).api_key;
    const login = await runJson<{ account: { email: string }; api_key: { name: string } }>(
      ["login", "--email", email, "--password", password, "--key-name", "laptop"],
      { env: cli.environment() },
    );
    expect(login.account.email).toBe(email);
    expect(login.api_key.name).toBe("laptop");
    expect(login.api_key).not.toHaveProperty("key");
    expect(parse(await readFile(cli.configFile, "utf8")).api_key).not.toBe(before);
  });
});

describe("keys", () => {
  it("lists and revokes keys (on the dashboard token signup saved: cli-habits.test.ts)", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const credentials = `${email}\n${password}\n`;
    const listed = await runOk(["keys", "ls", "--json"], { env: cli.environment(), input: credentials });
    expect(listed.stderr).not.toContain("Password:");
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; name: string; revoked_at: string | null }>;
    expect(keys.map((key) => key.name)).toEqual(["cairn-cli"]);

    const table = await runOk(["keys", "ls"], { env: cli.environment(), input: credentials });
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+STATUS\s+CREATED\s+LAST USED$/m);

    const revoked = await runJson(["keys", "rm", keys[0].id], { env: cli.environment(), input: credentials });
    expect(revoked).toEqual({ status: "revoked", id: keys[0].id });
    // The saved key was that one: the server now refuses it, exit 3 with a hint.
    const whoami = await runCairn(["whoami"], { env: cli.environment() });
    expectFailure(whoami, 3, "invalid_api_key");
    expect(whoami.stderr).toContain("Hint:");
    const again = await runCairn(["keys", "rm", keys[0].id], { env: cli.environment(), input: credentials });
    expectFailure(again, 4, "not_found");
  });
});

describe("config", () => {
  it("sets, shows (masked) and lets the environment override", async () => {
    const cli = await home();
    await runOk(["config", "set-url", "https://cairn.example.com/"], { env: cli.environment() });
    await runOk(["config", "set-key", "cairn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], {
      env: cli.environment(),
    });
    const shown = await runJson<{
      saved: { base_url: string; api_key: string };
      effective: Record<string, string>;
    }>(["config", "show"], { env: cli.environment() });
    expect(shown.saved.base_url).toBe("https://cairn.example.com");
    expect(shown.saved.api_key).toBe("cairn_AAAA…AAAA");
    const overridden = await runJson<{ effective: Record<string, string> }>(["config", "show"], {
      env: cli.environment({
        CAIRN_BASE_URL: server.baseUrl,
        CAIRN_API_KEY: "cairn_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
      }),
    });
    expect(overridden.effective).toMatchObject({
      base_url: server.baseUrl,
      base_url_source: "CAIRN_BASE_URL",
      api_key: "cairn_BBBB…BBBB",
      api_key_source: "CAIRN_API_KEY",
    });
    const human = await runOk(["config", "show"], { env: cli.environment() });
    expect(human.stdout).not.toContain("AAAAAAAAAAAAAAAAAAAAAAAA");
    expect((await stat(cli.configFile)).mode & 0o777).toBe(0o600);
  });

  it("refuses plain http to another host, from the flag, the file or the environment (exit 2)", async () => {
    const cli = await home();
    expectFailure(
      await runCairn(["config", "set-url", "http://cairn.example.com"], { env: cli.environment() }),
      2,
      "invalid_base_url",
    );
    await runOk(["config", "set-url", "https://cairn.example.com"], { env: cli.environment() });
    await writeFile(cli.configFile, 'base_url = "http://cairn.example.com"\n');
    const fromFile = await runCairn(["whoami"], { env: cli.environment() });
    expectFailure(fromFile, 2, "invalid_base_url");
    expect(fromFile.stderr).toContain(`base_url in ${cli.configFile} must use https`);
    const fromEnvironment = await runCairn(["whoami"], {
      env: cli.environment({ CAIRN_BASE_URL: "http://localhost.attacker.example" }),
    });
    expectFailure(fromEnvironment, 2, "invalid_base_url");
    expect(fromEnvironment.stderr).toContain("CAIRN_BASE_URL must use https");
  });

  it("says when a refused key comes from CAIRN_API_KEY, which a new login does not replace", async () => {
    const cli = await home();
    const stale = cli.environment({
      CAIRN_API_KEY: `cairn_${"B".repeat(38)}`,
      CAIRN_BASE_URL: server.baseUrl,
    });
    const refused = await runCairn(["whoami"], { env: stale });
    expectFailure(refused, 3, "invalid_api_key");
    expect(refused.stderr).toContain(
      "Hint: This key comes from CAIRN_API_KEY, which overrides the key `cairn login` saves",
    );
    const login = await runOk(
      ["signup", "--email", newEmail(), "--password", "correct horse battery", "--url", server.baseUrl],
      { env: stale },
    );
    expect(login.stderr).toContain("Note: CAIRN_API_KEY is set in this shell and overrides the saved key");
    const missing = await runCairn(["whoami"], { env: cli.environment({ CAIRN_BASE_URL: server.baseUrl }) });
    expect(missing.stderr).not.toContain("CAIRN_API_KEY, which overrides");
  });

  it("names a broken config file instead of crashing (exit 2)", async () => {
    const cli = await home();
    await runOk(["config", "set-url", server.baseUrl], { env: cli.environment() });
    await writeFile(cli.configFile, "base_url = = nope\n");
    const result = await runCairn(["whoami"], { env: cli.environment() });
    expectFailure(result, 2, "invalid_config");
    expect(result.stderr).toContain(cli.configFile);
  });

  it("needs a key for account commands (exit 3) and reports an unreachable server as a network error (exit 9)", async () => {
    const cli = await home();
    expectFailure(
      await runCairn(["whoami"], { env: cli.environment({ CAIRN_BASE_URL: server.baseUrl }) }),
      3,
      "missing_credentials",
    );
    const unreachable = await runCairn(["whoami"], {
      env: cli.environment({ CAIRN_BASE_URL: "http://127.0.0.1:9", CAIRN_API_KEY: "cairn_x" }),
    });
    expect(unreachable.code).toBe(9);
    expect(unreachable.stderr).toMatch(/^Network error: /);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /);
  });

  it("maps a server failure to exit 8, whether or not its body is the error envelope", async () => {
    // A stand-in for a broken deployment: a real server cannot be made to fail on purpose.
    const broken = createServer((request, response) => {
      if (request.url === "/v1/account") {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            error: { code: "internal_error", message: "Internal server error", retryable: true },
          }),
        );
      } else {
        response.writeHead(502, { "content-type": "text/html" });
        response.end("<html>Bad gateway</html>");
      }
    });
    await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
    const address = broken.address() as { port: number };
    try {
      const cli = await home();
      const env = cli.environment({
        CAIRN_BASE_URL: `http://127.0.0.1:${address.port}`,
        CAIRN_API_KEY: "cairn_x",
      });
      expectFailure(await runCairn(["whoami"], { env }), 8, "internal_error");
      const gateway = await runCairn(["session", "ls"], { env });
      expectFailure(gateway, 8, "error");
      expect(gateway.stderr).toContain("Error: HTTP 502 [error]");
    } finally {
      broken.close();
    }
  });

  it("lets mcp serve run on the saved settings alone", async () => {
    const cli = await home();
    await signUpThroughCli(cli, server.baseUrl);
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliEntry, "mcp", "serve", "--tools", "memory"],
        env: cli.environment(),
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("recall");
    } finally {
      await client.close();
    }
  });
});
