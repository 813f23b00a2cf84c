/**
 * The takeover terminal (docs/sandboxes.md#takeover-terminal) on this machine's terminal, shared by
 * `cairn attach` and the TUI's `t`: a single-use token minted first (so a refusal, a 403 with an
 * allowlist or a 404, throws before the screen is given up), then a WebSocket whose bytes go both
 * ways between the sandbox's PTY and the local terminal in raw mode, the local size sent at the
 * start and on every resize, and Ctrl-] to detach. Needs a global WebSocket (Node 22 and later).
 */
import type { CairnClient } from "cairn-client";

/** Ctrl-]: the detach key, as telnet and docker attach have it. */
export const detachKey = 0x1d;

/** The local side: keys come from `input` (raw while attached), the PTY's bytes go to `output`. */
export interface LocalTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/**
 * How an attached terminal ended: the detach key; `ended` when the server closed it after it
 * opened (the shell exited, the sandbox was destroyed, the server stopped); `failed` when it was
 * refused (4401, 4403, 4404, 4429), could not start (1011) or was never reached.
 */
export type TerminalEnd = { kind: "detached" } | { kind: "ended" | "failed"; code: number; reason: string };

export interface TakeoverTerminal {
  /** Wires `local` to the sandbox's PTY until detach or close; the local terminal is restored. */
  attach(local: LocalTerminal): Promise<TerminalEnd>;
}

interface TerminalSize {
  rows: number;
  cols: number;
}

/** Mints the terminal's token (single-use, valid 60 s): attach within that time. */
export async function requestTerminal(
  client: CairnClient,
  sessionId: string,
  options: { readOnly?: boolean } = {},
): Promise<TakeoverTerminal> {
  if ((globalThis as { WebSocket?: unknown }).WebSocket === undefined)
    throw new Error("The takeover terminal needs Node 22 or later (a global WebSocket)");
  const { token } = await client.takeoverToken(sessionId, { readOnly: options.readOnly ?? false });
  return { attach: (local) => attachSocket((size) => client.takeoverUrl(sessionId, token, size), local) };
}

const sizeOf = (output: NodeJS.WriteStream): TerminalSize => ({
  rows: output.rows || 24,
  cols: output.columns || 80,
});

/** The socket half of `attach`, apart so a test can point it at an address that refuses. */
export function attachSocket(
  url: (size: TerminalSize) => string,
  local: LocalTerminal,
): Promise<TerminalEnd> {
  const { input, output } = local;
  const socket = new WebSocket(url(sizeOf(output)));
  socket.binaryType = "arraybuffer";
  let opened = false;
  let settled = false;
  return new Promise((resolve) => {
    const finish = (end: TerminalEnd) => {
      if (settled) return;
      settled = true;
      input.off("data", onData);
      output.off("resize", onResize);
      if (opened) {
        if (input.isTTY) input.setRawMode(false);
        input.pause();
      }
      resolve(end);
    };
    // A string when the stream has an encoding (Ink sets utf8 on stdin): back to the bytes typed.
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const detach = bytes.indexOf(detachKey);
      if (detach < 0) return socket.send(bytes);
      if (detach > 0) socket.send(bytes.subarray(0, detach));
      socket.close(1000, "detached");
      finish({ kind: "detached" });
    };
    const onResize = () => socket.send(JSON.stringify({ type: "resize", ...sizeOf(output) }));
    socket.addEventListener("open", () => {
      opened = true;
      if (input.isTTY) input.setRawMode(true);
      input.on("data", onData);
      input.resume();
      output.on("resize", onResize);
    });
    socket.addEventListener("message", (event) => {
      // After a detach the screen is someone else's (the TUI's) again.
      if (settled) return;
      output.write(typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer));
    });
    socket.addEventListener("close", (event) => {
      const failed = !opened || event.code >= 4000 || event.code === 1011;
      const reason = event.reason || (opened ? "the connection closed" : "could not connect to the terminal");
      finish({ kind: failed ? "failed" : "ended", code: event.code, reason });
    });
  });
}
