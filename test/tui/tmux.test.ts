/**
 * The TUI in a real terminal (tmux, 80×24): `cairn tui` started from a config saved by `cairn
 * config`, searching memory, running a command in a new session and destroying it, a resize, quit;
 * and `cairn` with no arguments opening it.
 * With TUI_CAPTURE_DIR set it also writes each screen there (docs/tui.md shows them).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CairnClient } from "cairn-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { type LiveAccount, signUpWithKey } from "../support/processes.ts";
import { liveTestTimeoutMs } from "./ink-harness.ts";
import { startTmux, type TmuxTerminal } from "./tmux-terminal.ts";

const run = promisify(execFile);
const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

let server: LiveServer;
let account: LiveAccount;
let configHome: string;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await startLiveServer();
  account = await signUpWithKey(server.baseUrl);
  configHome = await mkdtemp(join(tmpdir(), "cairn-tui-config-"));
  // Saved the way a user saves them, by the CLI itself.
  const environment = { ...process.env, XDG_CONFIG_HOME: configHome, CAIRN_BASE_URL: "", CAIRN_API_KEY: "" };
  await run(process.execPath, [cliEntry, "config", "set-url", server.baseUrl], { env: environment });
  await run(process.execPath, [cliEntry, "config", "set-key", account.key], { env: environment });
});

afterAll(async () => {
  for (const terminal of terminals) await terminal.close();
  await server?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** `cairn <args>` in a fresh 80×24 tmux window, from the saved config; the window stays after it exits. */
async function startCairn(args: string): Promise<TmuxTerminal> {
  // CI=true would make Ink draw only its last frame; the CAIRN_ variables would bypass the saved config.
  const command = [
    "env -u CI -u CAIRN_BASE_URL -u CAIRN_API_KEY TERM=xterm-256color",
    `XDG_CONFIG_HOME=${quote(configHome)}`,
    quote(process.execPath),
    quote(cliEntry),
    `${args}; echo cairn exited with $?; sleep 600`,
  ].join(" ");
  const terminal = await startTmux(command);
  terminals.push(terminal);
  return terminal;
}

async function saveCapture(name: string, screen: string) {
  const directory = process.env.TUI_CAPTURE_DIR;
  if (!directory) return;
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, `${name}.txt`), screen);
}

/** Every row fits the 80 columns and the help bar holds the last of the 24 rows. */
function expectFullScreen(screen: string, helpStart: string) {
  const rows = screen.replace(/\n$/, "").split("\n");
  expect(rows).toHaveLength(24);
  for (const row of rows) expect(row.length).toBeLessThanOrEqual(80);
  expect(rows[0]).toMatch(/^cairn {2}1 Account {2}2 Sessions {2}3 Memory/);
  expect(rows[23].startsWith(helpStart)).toBe(true);
}

describe("cairn tui in tmux", () => {
  it(
    "starts from saved config, searches memory, runs a command in a session, destroys it and quits",
    async () => {
      const client = new CairnClient({ baseUrl: server.baseUrl, apiKey: account.key });
      await client.remember("The deploy script lives in ops/deploy.sh");
      await client.remember("The deploy script lives in ops/deploy.sh and needs bash 5");
      await client.remember("Alice prefers tabs over spaces", { kind: "preference" });

      const terminal = await startCairn("tui");

      const account_ = await terminal.waitFor("Sandboxes created in total: 0");
      expect(account_).toContain(account.email);
      expect(account_).toContain(server.baseUrl);
      expectFullScreen(account_, "r reload");
      await saveCapture("account", account_);

      await terminal.sendKeys("3");
      await terminal.waitFor("3 most recent");
      await terminal.sendKeys("/");
      await terminal.waitFor("esc done");
      await terminal.type("deploy bash");
      const search = await terminal.waitFor(/Search: deploy bash\s*\n\s*\d+ found/);
      expect(search).toMatch(/› fact\s+The deploy script lives in ops\/deploy\.sh and needs bash 5/);
      expectFullScreen(search, "type search");
      await saveCapture("memory-search", search);
      await terminal.sendKeys("Enter");
      const detail = await terminal.waitFor("Relations (1)");
      expect(detail).toMatch(/→ extends \d\.\d\d The deploy script lives in ops\/deploy\.sh/);
      await saveCapture("memory-detail", detail);
      await terminal.sendKeys("Escape");
      await terminal.waitFor("/ search");

      await terminal.sendKeys("2");
      await terminal.waitFor("No active sessions");
      await terminal.sendKeys("c");
      await terminal.waitFor("1 active");
      const [session] = await client.listSandboxes({ activeOnly: true });
      expect(session.label).toBe("tui");
      await terminal.sendKeys("Enter");
      await terminal.waitFor("esc cancel");
      await terminal.type("echo hello from $(uname -s) | tee hello.txt && ls -a");
      await terminal.waitFor("$ echo hello from $(uname -s) | tee hello.txt && ls -a");
      await terminal.sendKeys("Enter");
      const ran = await terminal.waitFor(/exit 0 · \d+ ms/);
      expect(ran).toContain("hello from Linux");
      expect(ran).toContain(session.id);
      expectFullScreen(ran, "c new  enter run  t terminal");
      await saveCapture("sessions", ran);
      await terminal.sendKeys("f");
      const files = await terminal.waitFor(/Files in \/workspace\/\s*\n[\s\S]*› hello\.txt\s+17 B/);
      await saveCapture("files", files);
      await terminal.sendKeys("Enter");
      await terminal.waitFor(/\/workspace\/hello\.txt {2}\(lines 1-1 of 1\)[\s\S]*hello from Linux/);
      await terminal.sendKeys("Escape");
      await terminal.waitFor("Files in /workspace/");
      await terminal.sendKeys("Escape");
      await terminal.waitFor("Press enter to run a command.");

      // The account's gauges count the running session.
      await terminal.sendKeys("1");
      const inUse = await terminal.waitFor(/Concurrent sandboxes\s+█+░*\s+1 \/ \d+/);
      expect(inUse).toContain("Sandboxes created in total: 1");
      await saveCapture("account-in-use", inUse);
      await terminal.sendKeys("2");
      await terminal.waitFor("Press enter to run a command.");

      await terminal.sendKeys("d");
      await terminal.waitFor(`Destroy session ${session.id}? (y/n)`);
      await terminal.sendKeys("y");
      await terminal.waitFor("0 active");
      expect((await client.getSandbox(session.id)).status).toBe("destroyed");

      // A narrower, shorter terminal gets a fresh full frame, not leftovers of the wide one.
      await terminal.resize(60, 16);
      const rowsOf = (screen: string) => screen.replace(/\n$/, "").split("\n");
      const narrow = await terminal.waitFor((screen) => {
        const rows = rowsOf(screen);
        return rows.length === 16 && /^cairn\s+1 Account/.test(rows[0]) && rows[15].startsWith("c new");
      });
      expect(rowsOf(narrow).filter((row) => row.includes("1 Account"))).toHaveLength(1);
      expect(rowsOf(narrow).filter((row) => row.includes("0 active"))).toHaveLength(1);
      await terminal.resize(80, 24);
      await terminal.waitFor(
        (screen) => screen.replace(/\n$/, "").split("\n")[23]?.startsWith("c new") ?? false,
      );

      await terminal.sendKeys("q");
      const after = await terminal.waitFor("cairn exited with 0");
      // The alternate screen is gone: the shell's screen is back, without the TUI's frame.
      expect(after).not.toContain("1 Account");
    },
    liveTestTimeoutMs,
  );

  it(
    "opens from `cairn` with no arguments in a terminal",
    async () => {
      const terminal = await startCairn("");
      const screen = await terminal.waitFor("Account id");
      expect(screen).toContain(account.email);
      await terminal.sendKeys("q");
      await terminal.waitFor("cairn exited with 0");
    },
    liveTestTimeoutMs,
  );
});
