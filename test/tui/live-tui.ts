/**
 * What the live TUI tests share: a real server, an account whose URL and key the CLI has saved in
 * a config home of its own, a client for that account, and the shell command that starts the TUI
 * in tmux against them (test/tui/exec-live.test.ts, processes.test.ts).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CairnClient } from "cairn-client";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { signUpWithKey } from "../support/processes.ts";

const run = promisify(execFile);
const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export interface LiveTui {
  server: LiveServer;
  client: CairnClient;
  /** `cairn tui` for tmux, then its exit status on screen, kept open for the last capture. */
  tuiCommand: string;
  close(): Promise<void>;
}

export async function startLiveTui(): Promise<LiveTui> {
  const server = await startLiveServer();
  const account = await signUpWithKey(server.baseUrl);
  const configHome = await mkdtemp(join(tmpdir(), "cairn-tui-config-"));
  const environment = { ...process.env, XDG_CONFIG_HOME: configHome, CAIRN_BASE_URL: "", CAIRN_API_KEY: "" };
  await run(process.execPath, [cliEntry, "config", "set-url", server.baseUrl], { env: environment });
  await run(process.execPath, [cliEntry, "config", "set-key", account.key], { env: environment });
  return {
    server,
    client: new CairnClient({ baseUrl: server.baseUrl, apiKey: account.key }),
    // CI=true would make Ink draw only its last frame.
    tuiCommand: [
      "env -u CI -u CAIRN_BASE_URL -u CAIRN_API_KEY TERM=xterm-256color",
      `XDG_CONFIG_HOME=${quote(configHome)}`,
      quote(process.execPath),
      quote(cliEntry),
      "tui; echo cairn exited with $?; sleep 600",
    ].join(" "),
    async close() {
      await server.close();
      await rm(configHome, { recursive: true, force: true });
    },
  };
}
