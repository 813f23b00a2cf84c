/**
 * Every command's help has examples and every command with output has `--json`; the installed
 * `cairn` (npm install -g into a temp prefix) runs even when the `node` on PATH is older than 24,
 * passing stdin through and handing back exit codes and signals.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/program.ts";
import { root } from "../mcp/mcp-harness.ts";
import { eventually } from "../support/eventually.ts";
import { freePort } from "../support/processes.ts";
import { type CliHome, createHome, runCairn } from "./cli-harness.ts";

const run = promisify(execFile);

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}
const fullName = (command: Command): string =>
  command.parent ? `${fullName(command.parent)} ${command.name()}` : command.name();

describe("help", () => {
  const program = buildProgram();
  const commands = [program, ...allCommands(program)].filter((command) => command.name() !== "help");

  it.each(commands.map((command) => [fullName(command), command] as const))(
    "%s --help shows examples",
    (_name, command) => {
      let text = "";
      command.configureOutput({
        writeOut: (chunk) => {
          text += chunk;
        },
      });
      command.outputHelp();
      expect(text).toMatch(/^Usage: cairn/);
      expect(text).toMatch(/\nExamples:\n {2}\$ cairn/);
    },
  );

  it("offers --json on every command that prints a result", () => {
    const withoutJson = allCommands(program)
      .filter((command) => command.commands.length === 0 && command.name() !== "help")
      .filter((command) => !command.options.some((option) => option.long === "--json"))
      .map(fullName);
    // serve speaks MCP on stdout, tui draws the screen and completion prints a shell script:
    // none prints a result.
    expect(withoutJson).toEqual(["cairn mcp serve", "cairn tui", "cairn completion"]);
  });

  it("prints help for the real binary with no arguments off a terminal, exit 0", async () => {
    const home = await createHome();
    const result = await runCairn([], { env: home.environment() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cairn \[options\] \[command\]/);
    expect(result.stdout).toContain("Exit codes:");
    const nested = await runCairn(["files", "grep", "--help"], { env: home.environment() });
    expect(nested.code).toBe(0);
    expect(nested.stdout).toContain("$ cairn files grep TODO");
    await home.remove();
  });
});

describe("the installed cairn", () => {
  let prefix: string;
  let packageFolder: string;
  let home: CliHome;
  let systemNode: string | null = null;
  let installedCairn: string;

  beforeAll(async () => {
    home = await createHome();
    prefix = await mkdtemp(join(tmpdir(), "cairn-prefix-"));
    // A package whose bin is the checkout's shim, installed the way `npm install -g` installs one.
    packageFolder = await mkdtemp(join(tmpdir(), "cairn-package-"));
    await symlink(join(root, "cli"), join(packageFolder, "cli"));
    await writeFile(
      join(packageFolder, "package.json"),
      JSON.stringify({
        name: "cairn-install-check",
        version: "0.1.0",
        type: "module",
        bin: { cairn: "cli/bin/cairn.js" },
      }),
    );
    await run("npm", ["install", "-g", packageFolder, "--no-audit", "--no-fund", "--offline"], {
      env: { ...process.env, npm_config_prefix: prefix },
    });
    installedCairn = join(prefix, "bin", "cairn");
    // The machine's own node (20 here), which cannot run .ts: the bin must run the built bundle.
    for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
      try {
        const { stdout } = await run(candidate, ["--version"]);
        if (Number(stdout.trim().slice(1).split(".")[0]) < 24) systemNode = candidate;
        break;
      } catch {}
    }
  }, 120_000);
  afterAll(async () => {
    await rm(prefix, { recursive: true, force: true });
    await rm(packageFolder, { recursive: true, force: true });
    await home.remove();
  });

  const environment = () =>
    home.environment({ PATH: `${systemNode ? join(systemNode, "..") : ""}:/usr/bin:/bin` });

  it("is linked into the prefix's bin", async () => {
    expect(await readFile(installedCairn, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it("runs with an older node first on PATH", async () => {
    if (systemNode) {
      const { stdout } = await run("node", ["--version"], { env: environment() });
      expect(Number(stdout.trim().slice(1).split(".")[0])).toBeLessThan(24);
    }
    const result = await runCairn(["--help"], { env: environment(), command: [installedCairn] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cairn/);
    expect(result.stdout).toContain("Examples:");
  });

  it("passes stdin through and hands back the exit code", async () => {
    expect(
      (await runCairn(["no-such-command"], { env: environment(), command: [installedCairn] })).code,
    ).toBe(2);
    // Nothing listens on that port: what the command read from stdin decides how it fails.
    const unreachable = {
      ...environment(),
      CAIRN_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      CAIRN_API_KEY: "cairn_x",
    };
    const broken = await runCairn(["memory", "import", "-"], {
      env: unreachable,
      command: [installedCairn],
      input: "{nope",
    });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("[invalid_json]");
    const ingest = await runCairn(["memory", "ingest"], {
      env: unreachable,
      command: [installedCairn],
      input: "The team meets on Mondays.",
    });
    expect(ingest.code).toBe(9);
    expect(ingest.stderr).toMatch(/^Network error: POST \/v1\/memory\/ingest failed: .*ECONNREFUSED/m);
    expect(ingest.stderr).toMatch(/^Hint: no Cairn server answers there\. Start one/m);
  });

  it("says nothing answers before asking for an email and a password", async () => {
    const login = await runCairn(["login", "--url", `http://127.0.0.1:${await freePort()}`], {
      env: environment(),
      command: [installedCairn],
      input: "someone@example.com\nsome password\n",
    });
    expect(login.code).toBe(9);
    expect(login.stderr).not.toContain("Email: ");
    expect(login.stderr).toMatch(/^Network error: GET \/health failed: .*ECONNREFUSED/m);
    expect(login.stderr).toMatch(/^Hint: no Cairn server answers there/m);
  });

  it("ends by the signal that ended the command", async () => {
    const child = spawn(installedCairn, ["memory", "import", "-"], {
      env: environment(),
      stdio: ["pipe", "ignore", "ignore"],
    });
    // The bin runs the bundle in its own process on any Node (no child to wait for): wait until the
    // command reads its stdin, which Node makes non-blocking then (O_NONBLOCK in fd 0's flags).
    await eventually(async () => {
      const flags = /flags:\s*(\d+)/.exec(
        await readFile(`/proc/${child.pid}/fdinfo/0`, "utf8").catch(() => ""),
      );
      return flags && (Number.parseInt(flags[1], 8) & 0o4000) !== 0 ? true : undefined;
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    child.kill("SIGTERM");
    expect(await ended).toBe("SIGTERM");
  });
});
