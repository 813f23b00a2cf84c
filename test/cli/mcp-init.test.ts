/**
 * `cairn mcp init TARGET` for each of the six targets on a missing, an existing and an invalid
 * file: only the `cairn` entry changes, other servers stay, an invalid file is left untouched,
 * the result is 0600. A project's file (.mcp.json, .vscode/mcp.json) names the key, never holds
 * it; every entry starts the CLI by absolute paths and runs with no `cairn` or `node` on PATH.
 * HOME and the working folder are temp folders.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliHome, createHome, expectFailure, runCairn, runOk } from "./cli-harness.ts";

const baseUrl = "https://cairn.example.com";
const apiKey = "cairn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const root = join(import.meta.dirname, "../..");
/** The checkout's Node 24 (the npm `node` package) and CLI entry, by absolute paths. */
const node = join(root, "node_modules", ".bin", "node");
const cliTs = join(root, "cli", "cairn.ts");
const entry = {
  command: node,
  args: [cliTs, "mcp", "serve"],
  env: { CAIRN_BASE_URL: baseUrl, CAIRN_API_KEY: apiKey },
};
/** What a project's file, which gets committed, holds instead of the key. */
const claudeCodeEntry = { ...entry, env: { ...entry.env, CAIRN_API_KEY: `\${CAIRN_API_KEY}` } };
const vscodeEntry = {
  type: "stdio",
  ...entry,
  env: { ...entry.env, CAIRN_API_KEY: `\${input:cairn-api-key}` },
};
const vscodeInput = {
  type: "promptString",
  id: "cairn-api-key",
  description: "Cairn API key (cairn_…)",
  password: true,
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

const claudeCodeNote = `It names the key as \${CAIRN_API_KEY}: set CAIRN_API_KEY in the environment Claude Code starts in. `;
const vscodeNote =
  "VS Code asks for the API key when it first starts the server and keeps it in its secret storage. ";

/** Each JSON target: its file, the key its servers sit under, its entry, and what else it adds. */
const jsonTargets = [
  {
    target: "claude-code",
    fileOf: () => join(project, ".mcp.json"),
    key: "mcpServers",
    cairn: claudeCodeEntry,
    extra: {},
    note: claudeCodeNote,
  },
  {
    target: "vscode",
    fileOf: () => join(project, ".vscode", "mcp.json"),
    key: "servers",
    cairn: vscodeEntry,
    extra: { inputs: [vscodeInput] },
    note: vscodeNote,
  },
  ...(
    [
      ["cursor", () => join(cli.home, ".cursor", "mcp.json")],
      ["windsurf", () => join(cli.home, ".codeium", "windsurf", "mcp_config.json")],
      ["claude-desktop", () => join(cli.home, ".config", "Claude", "claude_desktop_config.json")],
    ] as const
  ).map(([target, fileOf]) => ({ target, fileOf, key: "mcpServers", cairn: entry, extra: {}, note: "" })),
];

describe("cairn mcp init", () => {
  it("needs a saved base URL and key first (exit 3)", async () => {
    expectFailure(await run(["mcp", "init", "cursor"]), 3, "missing_credentials");
    expectFailure(await run(["mcp", "init", "vim"]), 2, "validation_error");
  });

  it("saves the settings the entries will carry", async () => {
    await runOk(["config", "set-url", baseUrl], { env: cli.environment() });
    await runOk(["config", "set-key", apiKey], { env: cli.environment() });
  });

  it("writes the checkout's Node, which `npm ci` installs", () => {
    expect(existsSync(node)).toBe(true);
  });

  describe.each(jsonTargets)("$target", ({ target, fileOf, key, cairn, extra, note }) => {
    it("creates a missing file with the entry, 0600", async () => {
      const result = await run(["mcp", "init", target]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`✔ Added cairn in ${fileOf()}. ${note}Restart your MCP client.\n`);
      expect(JSON.parse(await readFile(fileOf(), "utf8"))).toEqual({ [key]: { cairn }, ...extra });
      expect((await stat(fileOf())).mode & 0o777).toBe(0o600);
      if (target === "claude-code" || target === "vscode")
        expect(await readFile(fileOf(), "utf8")).not.toContain(apiKey);
    });

    it("replaces only the cairn entry of an existing file", async () => {
      const other = { command: "other-server", args: [] };
      const otherInput = { type: "promptString", id: "other-token", password: true };
      await writeFile(
        fileOf(),
        JSON.stringify({
          theme: "dark",
          [key]: { other, cairn: { command: "old" } },
          ...(target === "vscode" && { inputs: [otherInput, { ...vscodeInput, description: "old" }] }),
        }),
        { mode: 0o644 },
      );
      const result = await run(["mcp", "init", target, "--json"]);
      const reference = (cairn.env as { CAIRN_API_KEY: string }).CAIRN_API_KEY;
      expect(JSON.parse(result.stdout)).toEqual({
        target,
        path: fileOf(),
        action: "updated",
        ...(reference !== apiKey && { api_key: reference }),
      });
      expect(JSON.parse(await readFile(fileOf(), "utf8"))).toEqual({
        theme: "dark",
        [key]: { other, cairn },
        ...(target === "vscode" && { inputs: [otherInput, vscodeInput] }),
      });
      expect((await stat(fileOf())).mode & 0o777).toBe(0o600);
    });

    it("leaves an invalid file untouched (exit 2)", async () => {
      for (const broken of ["{ not json", `{"${key}": []}`]) {
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
      mcpServers: { cairn: { command: node, args: [cliTs, "mcp", "serve", "--data-dir", dataDir] } },
    });
  });

  it("writes VS Code's stdio entry under servers, with no input to ask for", async () => {
    const dataDir = join(fresh.home, "agent-data");
    await runOk(["mcp", "init", "vscode", "--data-dir", dataDir], {
      env: fresh.environment(),
      cwd: fresh.home,
    });
    expect(JSON.parse(await readFile(join(fresh.home, ".vscode", "mcp.json"), "utf8"))).toEqual({
      servers: {
        cairn: { type: "stdio", command: node, args: [cliTs, "mcp", "serve", "--data-dir", dataDir] },
      },
    });
  });

  it("writes a command that runs with neither cairn nor node on PATH", async () => {
    const { cairn } = JSON.parse(await readFile(join(fresh.home, ".vscode", "mcp.json"), "utf8")).servers;
    // As an MCP client starts it, from another folder, with a PATH that has no Node.
    const help = spawnSync(cairn.command, [...cairn.args.slice(0, 3), "--help"], {
      cwd: "/",
      env: { PATH: "/nonexistent", HOME: fresh.home },
      encoding: "utf8",
    });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Serve Cairn's MCP tools on stdio");
  });

  it("writes the same entry into codex's TOML", async () => {
    const dataDir = join(fresh.home, "agent-data");
    await runOk(["mcp", "init", "codex", "--data-dir", dataDir], {
      env: fresh.environment(),
      cwd: fresh.home,
    });
    expect(parse(await readFile(join(fresh.home, ".codex", "config.toml"), "utf8"))).toEqual({
      mcp_servers: { cairn: { command: node, args: [cliTs, "mcp", "serve", "--data-dir", dataDir] } },
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
