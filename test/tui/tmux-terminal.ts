/**
 * A real terminal for the TUI: a tmux server on a private socket, one 80×24 window running a
 * command, keys sent with send-keys and the screen read with capture-pane.
 */
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const tmuxBinary = "/usr/bin/tmux";

export interface TmuxTerminal {
  /** The screen as text, one line per row. */
  capture(): Promise<string>;
  /** tmux key names, one at a time ("Enter", "Escape", "BSpace", "Down", or a character). */
  sendKeys(...keys: string[]): Promise<void>;
  /** Text typed as is (send-keys -l). */
  type(text: string): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  /** Waits (bounded) for a screen that matches; fails with the last screen. */
  waitFor(expected: string | RegExp | ((screen: string) => boolean), limitMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** Starts `command` (a shell command line) in a fresh tmux server of its own. */
export async function startTmux(command: string, columns = 80, rows = 24): Promise<TmuxTerminal> {
  const socket = `cairn-tui-${crypto.randomUUID()}`;
  const tmux = (...args: string[]) => run(tmuxBinary, ["-L", socket, "-f", "/dev/null", ...args]);
  await tmux("new-session", "-d", "-s", "tui", "-x", String(columns), "-y", String(rows), command);
  // A window sized by new-session keeps that size with no client attached.
  await tmux("set-option", "-t", "tui", "window-size", "manual");
  const capture = async () => (await tmux("capture-pane", "-p", "-t", "tui")).stdout;
  return {
    capture,
    async sendKeys(...keys) {
      for (const key of keys) await tmux("send-keys", "-t", "tui", key);
    },
    async type(text) {
      await tmux("send-keys", "-t", "tui", "-l", text);
    },
    async resize(newColumns, newRows) {
      await tmux("resize-window", "-t", "tui", "-x", String(newColumns), "-y", String(newRows));
    },
    async waitFor(expected, limitMs = 30_000) {
      const matches = (screen: string) =>
        typeof expected === "string"
          ? screen.includes(expected)
          : expected instanceof RegExp
            ? expected.test(screen)
            : expected(screen);
      const deadline = Date.now() + limitMs;
      for (;;) {
        const screen = await capture();
        if (matches(screen)) return screen;
        if (Date.now() > deadline)
          throw new Error(`no screen matched ${String(expected)}; the last one:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await tmux("kill-server").catch(() => {
        // already gone with its last window
      });
      // tmux leaves the socket file behind; it names a server that no longer exists.
      const socketDirectory = join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`);
      await rm(join(socketDirectory, socket), { force: true });
    },
  };
}
