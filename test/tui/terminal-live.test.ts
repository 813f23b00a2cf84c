/**
 * The takeover terminal opened from the TUI (`t` on the sessions screen), in a real terminal (tmux)
 * against a live server with real sandboxes: a refusal (the allowlist's 403) on the error line;
 * the sandbox's shell on a PTY full-screen (`tty`, an echo the shell computes), a resize reaching
 * it (`stty size`), Ctrl-C stopping a command in it, Ctrl-] back to the sessions screen with the
 * same session selected; `exit` and a sandbox destroyed meanwhile each returning with a line
 * saying so; a 404 and a server that is gone as error lines, the TUI still running. With
 * TUI_CAPTURE_DIR set it writes screens.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveTestTimeoutMs } from "./ink-harness.ts";
import { type LiveTui, startLiveTui } from "./live-tui.ts";
import { startTmux, type TmuxTerminal } from "./tmux-terminal.ts";

let tui: LiveTui;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  tui = await startLiveTui();
});

afterAll(async () => {
  await terminal?.close();
  await tui?.close();
});

async function saveCapture(name: string, screen: string) {
  const directory = process.env.TUI_CAPTURE_DIR;
  if (!directory) return;
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, `${name}.txt`), screen);
}

/** The sessions screen, with `id` the selected row. */
const sessionsWithSelected = (id: string) => (screen: string) =>
  /Sessions {2}\d+ active/.test(screen) && screen.includes(`› ${id}`) && screen.includes("t terminal");

describe("the takeover terminal from the TUI", () => {
  it(
    "opens full-screen, follows a resize, detaches back to the same selection, and returns when it ends",
    async () => {
      const { client } = tui;
      const first = await client.createSandbox({ label: "first" });
      const second = await client.createSandbox({ label: "second" });
      terminal = await startTmux(tui.tuiCommand);
      await terminal.waitFor("Account id");
      await terminal.sendKeys("2");
      await terminal.waitFor("2 active");
      await terminal.sendKeys("Down");
      await terminal.waitFor(sessionsWithSelected(second.id));

      // With an allowlist a terminal that can type is refused: the error line, the TUI as it was.
      await client.setAllowedCommands(["echo"]);
      await terminal.sendKeys("t");
      // (The line is cut at the window's width before its code, [command_not_allowed].)
      const refused = await terminal.waitFor("Error: The account has a command allowlist");
      expect(refused).toContain(`› ${second.id}`);
      await client.clearAllowedCommands();

      await terminal.sendKeys("t");
      await terminal.waitFor(`[session ${second.id}: Ctrl-] returns to the TUI]`);
      await terminal.waitFor(/^\$ ?$/m);
      // The shell computes 42, so the line below the command can only be its output.
      await terminal.type("tty; echo answer-$((6 * 7))\n");
      const shell = await terminal.waitFor(/\/dev\/pts\/\d+\n\s*answer-42/);
      expect(shell).not.toContain("t terminal");
      await saveCapture("terminal-open", shell);

      await terminal.resize(100, 30);
      await terminal.type("clear; stty size\n");
      await terminal.waitFor(/^30 100$/m);
      // Ctrl-C is the shell's (it stops `sleep`), not the TUI's quit key.
      // (Once the shell has read the line: a Ctrl-C before that would flush it unread.)
      await terminal.type("echo sleeping; sleep 600\n");
      await terminal.waitFor(/^sleeping$/m);
      await terminal.sendKeys("C-c");
      // The next line is typed at the new prompt: typed while `sleep` still ran, the terminal
      // echoes it before the prompt is printed, and the output shares the prompt's line.
      await terminal.waitFor(/\^C\n\s*\$ ?$/m);
      await terminal.type("echo after-$((1 + 1))\n");
      await terminal.waitFor(/^after-2$/m);

      await terminal.sendKeys("C-]");
      const back = await terminal.waitFor(sessionsWithSelected(second.id));
      expect(back).toContain("2 active");
      expect(back).not.toContain("Terminal closed");
      expect(back).not.toContain("answer-42");
      await saveCapture("terminal-detached", back);

      // A second time, ended from inside.
      await terminal.sendKeys("t");
      await terminal.waitFor(/^\$ ?$/m);
      await terminal.type("exit\n");
      const ended = await terminal.waitFor("Terminal closed: the terminal ended");
      expect(ended).toContain(`› ${second.id}`);

      // The sandbox destroyed while its terminal is open.
      await terminal.sendKeys("t");
      await terminal.waitFor(`[session ${second.id}: Ctrl-]`);
      await terminal.waitFor(/^\$ ?$/m);
      await client.destroySandbox(second.id);
      const destroyed = await terminal.waitFor("Terminal closed: the sandbox was destroyed");
      expect(destroyed).toMatch(/Sessions {2}\d+ active/);
      await terminal.waitFor(sessionsWithSelected(first.id));

      // A session that ended elsewhere, still listed until the next reload: 404.
      await client.destroySandbox(first.id);
      await terminal.sendKeys("t");
      await terminal.waitFor(/Error: .*not (found|active).*\[not_found\]/);
      await terminal.waitFor("0 active");

      // The server gone: the connection is refused, and the TUI keeps running.
      const last = await client.createSandbox({ label: "last" });
      await terminal.sendKeys("r");
      await terminal.waitFor(sessionsWithSelected(last.id));
      await tui.server.close();
      await terminal.sendKeys("t");
      await terminal.waitFor(/Network error: /);
      await terminal.sendKeys("q");
      await terminal.waitFor("cairn exited with 0");
    },
    liveTestTimeoutMs,
  );
});
