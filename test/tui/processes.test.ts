/**
 * The TUI's process list in a real terminal (tmux, 80×24), against a live server with a real
 * sandbox: a session's background processes listed with status, exit code and output size, a
 * process started meanwhile appearing without a key, one followed live through its stream to its
 * exit, and back to the list. With TUI_CAPTURE_DIR set it writes the screens there (docs/tui.md).
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
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  server = await startLiveServer();
  account = await signUpWithKey(server.baseUrl);
  configHome = await mkdtemp(join(tmpdir(), "cairn-tui-config-"));
  const environment = { ...process.env, XDG_CONFIG_HOME: configHome, CAIRN_BASE_URL: "", CAIRN_API_KEY: "" };
  await run(process.execPath, [cliEntry, "config", "set-url", server.baseUrl], { env: environment });
  await run(process.execPath, [cliEntry, "config", "set-key", account.key], { env: environment });
});

afterAll(async () => {
  await terminal?.close();
  await server?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

async function saveCapture(name: string, screen: string) {
  const directory = process.env.TUI_CAPTURE_DIR;
  if (!directory) return;
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, `${name}.txt`), screen);
}

describe("the process list in tmux", () => {
  it(
    "lists a session's processes, picks up a new one, and follows one's output to its exit",
    async () => {
      const client = new CairnClient({ baseUrl: server.baseUrl, apiKey: account.key });
      const sandbox = await client.createSandbox({ label: "procs" });
      const failed = await client.startProcess(sandbox.id, "echo first; echo oops >&2; exit 3");
      await client.waitProcess(sandbox.id, failed.process_id, { timeoutSeconds: 30 });

      // CI=true would make Ink draw only its last frame.
      terminal = await startTmux(
        [
          "env -u CI -u CAIRN_BASE_URL -u CAIRN_API_KEY TERM=xterm-256color",
          `XDG_CONFIG_HOME=${quote(configHome)}`,
          quote(process.execPath),
          quote(cliEntry),
          "tui; echo cairn exited with $?; sleep 600",
        ].join(" "),
      );
      await terminal.waitFor("Account id");
      await terminal.sendKeys("2");
      await terminal.waitFor("1 active");
      await terminal.sendKeys("p");
      const listed = await terminal.waitFor("1 in this session");
      // "first\n" and "oops\n": 11 bytes of output.
      expect(listed).toMatch(
        new RegExp(
          `› ${failed.process_id.slice(0, 13)}\\s+exited\\s+3\\s+11 B\\s+echo first; echo oops >&2; exit 3`,
        ),
      );
      expect(listed.replace(/\n$/, "").split("\n")[23]).toMatch(/^↑↓ move {2}enter follow/);

      // Started after the list opened: the list reloads by itself.
      const ticker = await client.startProcess(
        sandbox.id,
        "for i in 1 2 3 4 5 6; do echo tick $i; sleep 1; done",
      );
      const both = await terminal.waitFor("2 in this session");
      expect(both).toMatch(new RegExp(`${ticker.process_id.slice(0, 13)}\\s+running\\s+-`));
      await saveCapture("processes", both);

      await terminal.sendKeys("Down", "Enter");
      // Live: the first ticks show while the process still runs.
      const live = await terminal.waitFor(/tick 2/);
      expect(live).toContain(ticker.process_id);
      expect(live).toContain("running…");
      expect(live).not.toContain("tick 6");
      await saveCapture("process-following", live);
      const ended = await terminal.waitFor("exited · exit 0");
      expect(ended).toMatch(/tick 1\n\s*tick 2\n\s*tick 3\n\s*tick 4\n\s*tick 5\n\s*tick 6/);

      await terminal.sendKeys("Escape");
      const after = await terminal.waitFor(
        new RegExp(`${ticker.process_id.slice(0, 13)}\\s+exited\\s+0\\s+42 B`),
      );
      expect(after).toContain("2 in this session");
      await terminal.sendKeys("Escape");
      await terminal.waitFor("Press enter to run a command.");
      await terminal.sendKeys("q");
      await terminal.waitFor("cairn exited with 0");
      await client.destroySandbox(sandbox.id);
    },
    liveTestTimeoutMs,
  );
});
