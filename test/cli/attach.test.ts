/**
 * `cairn attach` in a real terminal (tmux, 80×24) against a live server (docs/cli.md#attach): the
 * sandbox's shell on a PTY (`tty`), the local size sent at the start and on a resize
 * (`stty size`), Ctrl-] detaching; and `cairn preview PORT` printing a URL that works.
 */
import { CairnClient } from "cairn-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { type LiveAccount, signUpWithKey } from "../support/processes.ts";
import { startTmux, type TmuxTerminal } from "../tui/tmux-terminal.ts";

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

let server: LiveServer;
let account: LiveAccount;
let client: CairnClient;
let sessionId: string;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await startLiveServer();
  account = await signUpWithKey(server.baseUrl);
  client = new CairnClient({ baseUrl: server.baseUrl, apiKey: account.key });
  sessionId = (await client.createSandbox()).id;
}, 60_000);
afterAll(async () => {
  for (const terminal of terminals) await terminal.close();
  await server?.close();
});

async function startCairn(args: string): Promise<TmuxTerminal> {
  const command = [
    `env -u CI TERM=xterm-256color CAIRN_BASE_URL=${quote(server.baseUrl)} CAIRN_API_KEY=${quote(account.key)}`,
    quote(process.execPath),
    quote(cliEntry),
    `${args}; echo cairn exited with $?; sleep 600`,
  ].join(" ");
  const terminal = await startTmux(command);
  terminals.push(terminal);
  return terminal;
}

describe("cairn attach and cairn preview", () => {
  it("opens the sandbox's shell on a PTY, follows a resize and detaches on Ctrl-]", {
    timeout: 90_000,
  }, async () => {
    const terminal = await startCairn(`attach ${sessionId}`);
    await terminal.waitFor(/^\$/m);
    await terminal.type("tty; stty size\n");
    await terminal.waitFor(/\/dev\/pts\/\d+[\s\S]*24 80/);
    await terminal.resize(100, 30);
    await terminal.type("clear; stty size\n");
    await terminal.waitFor(/^30 100$/m);
    await terminal.sendKeys("C-]");
    const screen = await terminal.waitFor("cairn exited with");
    expect(screen).toContain("[detached]");
    expect(screen).toContain("cairn exited with 0");
  });

  it("prints a preview URL that reaches a server in the sandbox", { timeout: 90_000 }, async () => {
    const server = await client.startProcess(sessionId, "python3 -u -m http.server 8123 --bind 127.0.0.1");
    // The server says when it listens (the process output's long poll answers as it comes).
    let printed = "";
    for (let offset = 0; !printed.includes("Serving HTTP"); ) {
      const output = await client.processOutput(sessionId, server.process_id, {
        sinceOffset: offset,
        waitSeconds: 30,
      });
      expect(output.status, printed).toBe("running");
      printed += output.stdout + output.stderr;
      offset = output.next_offset;
    }
    const terminal = await startCairn(`preview 8123 --session ${sessionId}`);
    const screen = await terminal.waitFor("cairn exited with 0");
    const url = /http:\/\/\S+\/v1\/previews\/\S+\//.exec(screen.replaceAll("\n", ""))?.[0];
    expect(url).toBeDefined();
    expect((await fetch(url ?? "")).status).toBe(200);
  });
});
