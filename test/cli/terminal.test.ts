/**
 * The CLI in a real terminal (tmux): hidden password prompts drawn by @inquirer/prompts and
 * answered by keystrokes, colour on a terminal, and none with NO_COLOR.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { type CliHome, createHome, newEmail, password } from "./cli-harness.ts";

const run = promisify(execFile);
const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"]);
    return true;
  } catch {
    return false;
  }
})();

const socket = `cairn-cli-${process.pid}`;
const tmux = (...args: string[]) => run("tmux", ["-L", socket, ...args]);

/** A command in a fresh tmux window; its exit code is written into the pane when it ends. */
async function startInTerminal(name: string, environment: Record<string, string>, args: string[]) {
  const exports = Object.entries(environment).map(([key, value]) => `${key}='${value}'`);
  const command = `env ${exports.join(" ")} ${process.execPath} ${cliEntry} ${args.join(" ")}; echo "EXIT=$?"; sleep 600`;
  await tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "40", command);
  return {
    screen: async (escapes = false) =>
      (await tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", name)).stdout,
    async waitFor(pattern: RegExp) {
      for (let attempt = 0; attempt < 300; attempt++) {
        const text = await this.screen();
        if (pattern.test(text)) return text;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`never saw ${pattern} on:\n${await this.screen()}`);
    },
    type: (text: string) =>
      tmux("send-keys", "-t", name, "-l", text).then(() => tmux("send-keys", "-t", name, "Enter")),
  };
}

let server: LiveServer;
let cli: CliHome;
beforeAll(async () => {
  if (!hasTmux) return;
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
  cli = await createHome();
});
afterAll(async () => {
  if (!hasTmux) return;
  await tmux("kill-server").catch(() => {});
  await server.close();
  await cli.remove();
});

describe.skipIf(!hasTmux)("in a terminal", () => {
  it("prompts for email and a hidden, confirmed password, and colours its output", async () => {
    const email = newEmail();
    const environment = {
      HOME: cli.home,
      XDG_CONFIG_HOME: cli.configHome,
      TERM: "xterm-256color",
      PATH: process.env.PATH ?? "",
    };
    const terminal = await startInTerminal("signup", environment, ["signup", "--url", server.baseUrl]);
    await terminal.waitFor(/Email/);
    await terminal.type(email);
    await terminal.waitFor(/Password/);
    await terminal.type(password);
    await terminal.waitFor(/Confirm password/);
    await terminal.type(password);
    const screen = await terminal.waitFor(/EXIT=\d+/);
    expect(screen).toContain("EXIT=0");
    expect(screen).toContain(`Signed up as ${email}`);
    expect(screen).not.toContain(password);
    expect(screen).toMatch(/Password \*{21}/);
    expect(parse(await readFile(cli.configFile, "utf8")).base_url).toBe(server.baseUrl);
    // Colour on a terminal: the check mark is green.
    expect(await terminal.screen(true)).toContain("\x1b[32m✔");

    const plain = await startInTerminal("plain", { ...environment, NO_COLOR: "1" }, ["whoami"]);
    const whoami = await plain.waitFor(/EXIT=\d+/);
    expect(whoami).toContain("EXIT=0");
    expect(whoami).toContain(email);
    expect(await plain.screen(true)).not.toContain("\x1b[3");
  });
});
