/**
 * `cairn mcp init TARGET` for each of the five targets on a missing, an existing and an invalid
 * file: only the `cairn` entry changes, other servers stay, an invalid file is left untouched,
 * the result is 0600. HOME and the working folder are temp folders.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliHome, createHome, expectFailure, runCairn, runOk } from "./cli-harness.ts";

const baseUrl = "https://cairn.example.com";
const apiKey = "cairn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const entry = {
  command: "cairn",
  args: ["mcp", "serve"],
  env: { CAIRN_BASE_URL: baseUrl, CAIRN_API_KEY: apiKey },
};

let cli: CliHome;
let project: string;
const run = (args: string[]) => runCairn(args, { env: cli.environment(), cwd: project });

beforeAll(async () => {
  cli = await createHome();
  project = join(cli.home, "project");
  await mkdir(project);
});
afterAll(() => cli.remove());

const jsonTargets = [
  ["claude-code", () => join(project, ".mcp.json")],
  ["cursor", () => join(cli.home, ".cursor", "mcp.json")],
  ["windsurf", () => join(cli.home, ".codeium", "windsurf", "mcp_config.json")],
  ["claude-desktop", () => join(cli.home, ".config", "Claude", "claude_desktop_config.json")],
] as const;

describe("cairn mcp init", () => {
  it("needs a saved base URL and key first (exit 3)", async () => {
    expectFailure(await run(["mcp", "init", "cursor"]), 3, "missing_credentials");
    expectFailure(await run(["mcp", "init", "vim"]), 2, "validation_error");
  });

  it("saves the settings the entries will carry", async () => {
    await runOk(["config", "set-url", baseUrl], { env: cli.environment() });
    await runOk(["config", "set-key", apiKey], { env: cli.environment() });
  });

  describe.each(jsonTargets)("%s", (target, fileOf) => {
    it("creates a missing file with the entry, 0600", async () => {
      const result = await run(["mcp", "init", target]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`✔ Added cairn in ${fileOf()}. Restart your MCP client.\n`);
      expect(JSON.parse(await readFile(fileOf(), "utf8"))).toEqual({ mcpServers: { cairn: entry } });
      expect((await stat(fileOf())).mode & 0o777).toBe(0o600);
    });

    it("replaces only the cairn entry of an existing file", async () => {
      const other = { command: "other-server", args: [] };
      await writeFile(
        fileOf(),
        JSON.stringify({ theme: "dark", mcpServers: { other, cairn: { command: "old" } } }),
        { mode: 0o644 },
      );
      const result = await run(["mcp", "init", target, "--json"]);
      expect(JSON.parse(result.stdout)).toEqual({ target, path: fileOf(), action: "updated" });
      expect(JSON.parse(await readFile(fileOf(), "utf8"))).toEqual({
        theme: "dark",
        mcpServers: { other, cairn: entry },
      });
      expect((await stat(fileOf())).mode & 0o777).toBe(0o600);
    });

    it("leaves an invalid file untouched (exit 2)", async () => {
      for (const broken of ["{ not json", '{"mcpServers": []}']) {
        await writeFile(fileOf(), broken);
        const result = await run(["mcp", "init", target]);
        expectFailure(result, 2, "invalid_config");
        expect(result.stderr).toContain(fileOf());
        expect(await readFile(fileOf(), "utf8")).toBe(broken);
      }
    });
  });

  describe("codex", () => {
    const file = () => join(cli.home, ".codex", "config.toml");

    it("creates a missing file with the [mcp_servers.cairn] table, 0600", async () => {
      const result = await run(["mcp", "init", "codex"]);
      expect(result.stdout).toBe(`✔ Added cairn in ${file()}. Restart your MCP client.\n`);
      const text = await readFile(file(), "utf8");
      expect(text).toContain("[mcp_servers.cairn]");
      expect(text).toContain("[mcp_servers.cairn.env]");
      expect(parse(text)).toEqual({ mcp_servers: { cairn: entry } });
      expect((await stat(file())).mode & 0o777).toBe(0o600);
    });

    it("replaces only the cairn table and keeps the rest, comments included", async () => {
      const before = [
        "# my codex settings",
        'model = "o4"',
        "",
        "[mcp_servers.other]",
        'command = "other-server"',
        "",
        "[mcp_servers.cairn]",
        'command = "old"',
        "",
        "[mcp_servers.cairn.env]",
        'CAIRN_API_KEY = "old"',
        "",
        "[profiles.fast] # a comment",
        'model = "mini"',
        "",
      ].join("\n");
      await mkdir(dirname(file()), { recursive: true });
      await writeFile(file(), before);
      const result = await run(["mcp", "init", "codex"]);
      expect(result.stdout).toContain("Updated cairn");
      const text = await readFile(file(), "utf8");
      expect(text).toContain("# my codex settings");
      expect(text).toContain("[profiles.fast] # a comment");
      expect(parse(text)).toEqual({
        model: "o4",
        mcp_servers: { other: { command: "other-server" }, cairn: entry },
        profiles: { fast: { model: "mini" } },
      });
    });

    it("rewrites an entry written inline, keeping the other servers", async () => {
      await writeFile(file(), 'mcp_servers = { other = { command = "x" }, cairn = { command = "old" } }\n');
      await runOk(["mcp", "init", "codex"], { env: cli.environment(), cwd: project });
      expect(parse(await readFile(file(), "utf8"))).toEqual({
        mcp_servers: { other: { command: "x" }, cairn: entry },
      });
    });

    it("leaves invalid TOML untouched (exit 2)", async () => {
      await writeFile(file(), "[mcp_servers\nbroken = ");
      expectFailure(await run(["mcp", "init", "codex"]), 2, "invalid_config");
      expect(await readFile(file(), "utf8")).toBe("[mcp_servers\nbroken = ");
    });
  });
});

describe("cairn mcp init --data-dir", () => {
  let fresh: CliHome;
  beforeAll(async () => {
    fresh = await createHome();
  });
  afterAll(() => fresh.remove());

  it("needs no login: the entry serves the directory in the client's own cairn, with no key in the file", async () => {
    const dataDir = join(fresh.home, "agent-data");
    const result = await runCairn(["mcp", "init", "claude-code", "--data-dir", "agent-data"], {
      env: fresh.environment(),
      cwd: fresh.home,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `✔ Added cairn (data directory ${dataDir}) in ${join(fresh.home, ".mcp.json")}. Restart your MCP client.\n`,
    );
    expect(JSON.parse(await readFile(join(fresh.home, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: { cairn: { command: "cairn", args: ["mcp", "serve", "--data-dir", dataDir] } },
    });
  });

  it("writes the same entry into codex's TOML", async () => {
    const dataDir = join(fresh.home, "agent-data");
    await runOk(["mcp", "init", "codex", "--data-dir", dataDir], {
      env: fresh.environment(),
      cwd: fresh.home,
    });
    expect(parse(await readFile(join(fresh.home, ".codex", "config.toml"), "utf8"))).toEqual({
      mcp_servers: { cairn: { command: "cairn", args: ["mcp", "serve", "--data-dir", dataDir] } },
    });
  });

  it("refuses an empty directory name (exit 2)", async () => {
    expectFailure(
      await runCairn(["mcp", "init", "cursor", "--data-dir", " "], {
        env: fresh.environment(),
        cwd: fresh.home,
      }),
      2,
      "validation_error",
    );
  });
});
