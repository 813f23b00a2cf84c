/**
 * A session's takeover terminal opened from the TUI (`t` on the sessions screen), through the same
 * code as `cairn attach` (cli/takeover-terminal.ts). The token is minted while the TUI still shows,
 * so a refusal (403 with an allowlist, 404, a network error) is the screen's error line; then Ink
 * hands the terminal over (`suspendTerminal`: its frame erased, the alternate screen left, its
 * input paused and raw mode off) until Ctrl-] or the terminal's end, and redraws its state as it was.
 */
import type { CairnClient } from "cairn-client";
import { useApp, useStdin, useStdout } from "ink";
import { useCallback, useState } from "react";
import { requestTerminal, type TerminalEnd } from "../takeover-terminal.ts";
import { describeError } from "./describe-error.ts";

/** One line for the status row after the terminal: why it closed, or why it did not open. */
export interface TerminalNotice {
  tone: "info" | "error";
  text: string;
}

/** A detach says nothing: the TUI comes back as it was. */
export function noticeFor(end: TerminalEnd): TerminalNotice | null {
  if (end.kind === "detached") return null;
  if (end.kind === "ended") return { tone: "info", text: `Terminal closed: ${end.reason}` };
  return { tone: "error", text: `Error: ${end.reason} [${end.code}]` };
}

/**
 * The terminal starts on an empty screen (the screen the shell had before the TUI, which Ink's
 * alternate screen kept): its rows are scrolled into the scrollback, kept, and the cursor sent home.
 */
const clearByScrolling = (rows: number) => `\u001B[${rows};1H${"\n".repeat(rows)}\u001B[H`;

export function useTakeoverTerminal(client: CairnClient) {
  const { suspendTerminal } = useApp();
  // Ink's own streams (process.stdin and stdout in a real terminal).
  const input = useStdin().stdin as NodeJS.ReadStream;
  const output = useStdout().stdout as NodeJS.WriteStream;
  const [notice, setNotice] = useState<TerminalNotice | null>(null);

  /** Resolves once the TUI has the terminal back. */
  const open = useCallback(
    async (sessionId: string) => {
      setNotice(null);
      try {
        const terminal = await requestTerminal(client, sessionId);
        let end: TerminalEnd = { kind: "detached" };
        await suspendTerminal(async () => {
          output.write(clearByScrolling(output.rows || 24));
          output.write(`[session ${sessionId}: Ctrl-] returns to the TUI]\r\n`);
          end = await terminal.attach({ input, output });
        });
        setNotice(noticeFor(end));
      } catch (error) {
        setNotice({ tone: "error", text: describeError(error) });
      }
    },
    [client, suspendTerminal, input, output],
  );

  const clearNotice = useCallback(() => setNotice(null), []);
  return { notice, open, clearNotice };
}
