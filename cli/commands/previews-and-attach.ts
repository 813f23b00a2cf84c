/**
 * `cairn preview PORT` (a URL reaching a port of a session; `--revoke TOKEN_ID` ends one) and
 * `cairn attach [SESSION]`, the takeover terminal (docs/cli.md#attach): the local terminal in raw
 * mode wired to the sandbox's PTY over a WebSocket opened with a single-use token; resized on
 * SIGWINCH; Ctrl-] detaches. Needs a Node with a global WebSocket (22 and later).
 */
import type { Command } from "commander";
import { leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { note, printJson, success } from "../output.ts";
import { toNumber } from "../schemas.ts";

/** Ctrl-]: the detach key, as telnet and docker attach have it. */
const detachKey = 0x1d;

export function addPreviewCommands(program: Command): void {
  leaf(program, "preview <port>", "Print a URL that reaches a port inside a session (HTTP and WebSocket)", [
    "cairn preview 8000",
    "cairn preview 5173 --ttl-seconds 3600 --session 7c0e…",
    "cairn preview 8000 --revoke prv_…",
  ])
    .option("--session <id>", "session id (default: the only active session)")
    .option("--ttl-seconds <seconds>", "how long the URL works: 30 to 86400 (default 900)", toNumber)
    .option("--revoke <token_id>", "end the preview with this token_id instead")
    .action(
      async (
        port: string,
        options: JsonOption & { session?: string; ttlSeconds?: number; revoke?: string },
      ) => {
        const { client } = await authenticatedClient();
        const sessionId = await resolveSession(client, options.session);
        if (options.revoke !== undefined) {
          const revoked = await client.revokePreview(sessionId, Number(port), options.revoke);
          if (options.json) return printJson(revoked);
          return success(`Revoked ${options.revoke}`);
        }
        const preview = await client.preview(sessionId, Number(port), { ttlSeconds: options.ttlSeconds });
        if (options.json) return printJson(preview);
        process.stdout.write(`${preview.url}\n`);
        note(`token_id ${preview.token_id}, until ${preview.expires_at}`);
      },
    );

  leaf(program, "attach [session]", "Open a terminal in a session (Ctrl-] detaches)", [
    "cairn attach",
    "cairn attach 7c0e… --read-only",
  ])
    .option("--read-only", "watch without typing")
    .action(async (session: string | undefined, options: JsonOption & { readOnly?: boolean }) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, session);
      const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
      if (Socket === undefined) throw new Error("cairn attach needs Node 22 or later (a global WebSocket)");
      const { token } = await client.takeoverToken(sessionId, { readOnly: options.readOnly ?? false });
      const size = () => ({ rows: process.stdout.rows || 24, cols: process.stdout.columns || 80 });
      const socket = new Socket(client.takeoverUrl(sessionId, token, size()));
      socket.binaryType = "arraybuffer";
      const input = process.stdin;
      const restore = () => {
        if (input.isTTY) input.setRawMode(false);
        input.pause();
      };
      const code = await new Promise<number>((resolve) => {
        const onData = (bytes: Buffer) => {
          const detach = bytes.indexOf(detachKey);
          if (detach >= 0) {
            if (detach > 0) socket.send(bytes.subarray(0, detach));
            socket.close(1000, "detached");
            return resolve(0);
          }
          socket.send(bytes);
        };
        const onResize = () => socket.send(JSON.stringify({ type: "resize", ...size() }));
        socket.addEventListener("open", () => {
          if (input.isTTY) input.setRawMode(true);
          input.resume();
          input.on("data", onData);
          process.stdout.on("resize", onResize);
        });
        socket.addEventListener("message", (event) => {
          process.stdout.write(
            typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer),
          );
        });
        socket.addEventListener("close", (event) => {
          input.off("data", onData);
          process.stdout.off("resize", onResize);
          if (event.code >= 4000)
            process.stderr.write(`cairn: ${event.reason || `closed (${event.code})`}\n`);
          resolve(event.code >= 4000 ? 1 : 0);
        });
      });
      restore();
      process.stderr.write("\r\n[detached]\r\n");
      process.exitCode = code;
    });
}
