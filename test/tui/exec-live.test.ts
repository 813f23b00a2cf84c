/**
 * A command's output in the TUI while it runs, in a real terminal (tmux, 80×24) against a live
 * server with a real sandbox: the command prints a line, then waits for a file that only this
 * test creates once that line is on the screen, so the line can only have come through the exec
 * stream; then the rest and the exit. With TUI_CAPTURE_DIR set it writes the screen there.
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

describe("a command's output in tmux", () => {
  it(
    "shows the output as the command writes it, before the command ends",
    async () => {
      const { client } = tui;
      const sandbox = await client.createSandbox({ label: "live" });
      terminal = await startTmux(tui.tuiCommand);
      await terminal.waitFor("Account id");
      await terminal.sendKeys("2");
      await terminal.waitFor("1 active");
      await terminal.sendKeys("Enter");
      await terminal.waitFor("esc cancel");
      const command = "echo step one; echo warned >&2; while [ ! -e go ]; do sleep 0.05; done; echo step two";
      await terminal.type(command);
      // Enter only once the input shows the whole command: sent at once, the two reach the TUI as
      // one chunk, which it takes for pasted text, not for the Enter key.
      await terminal.waitFor(/sleep 0\.05; done; echo\s+step two/);
      await terminal.sendKeys("Enter");

      // The command cannot end before /workspace/go exists, and only this test creates it, below.
      const live = await terminal.waitFor(/step one\n\s*warned/);
      expect(live).toContain("running…");
      expect(live).not.toContain("step two");
      const directory = process.env.TUI_CAPTURE_DIR;
      if (directory) {
        await mkdir(directory, { recursive: true });
        await writeFile(join(directory, "exec-live.txt"), live);
      }
      expect((await client.exec(sandbox.id, "touch go")).exit_code).toBe(0);

      const ended = await terminal.waitFor(/exit 0 · \d+ ms/);
      expect(ended).toMatch(/step one\n\s*warned\n\s*step two/);
      expect(ended).not.toContain("running…");
      await terminal.sendKeys("q");
      await terminal.waitFor("cairn exited with 0");
      await client.destroySandbox(sandbox.id);
    },
    liveTestTimeoutMs,
  );
});
