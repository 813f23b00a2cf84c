/**
 * The TUI's process list in a real terminal (tmux, 80×24), against a live server with a real
 * sandbox: a session's background processes listed with status, exit code and output size, a
 * process started meanwhile appearing without a key, one followed live through its stream to its
 * exit, and back to the list. With TUI_CAPTURE_DIR set it writes the screens there (docs/tui.md).
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

describe("the process list in tmux", () => {
  it(
    "lists a session's processes, picks up a new one, and follows one's output to its exit",
    async () => {
      const { client } = tui;
      const sandbox = await client.createSandbox({ label: "procs" });
      const failed = await client.startProcess(sandbox.id, "echo first; echo oops >&2; exit 3");
      await client.waitProcess(sandbox.id, failed.process_id, { timeoutSeconds: 30 });

      terminal = await startTmux(tui.tuiCommand);
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
