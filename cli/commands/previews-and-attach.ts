/**
 * `cairn preview PORT` (a URL reaching a port of a session; `--revoke TOKEN_ID` ends one) and
 * `cairn attach [SESSION]`, the takeover terminal (docs/cli.md#attach): the local terminal in raw
 * mode wired to the sandbox's PTY over a WebSocket opened with a single-use token; resized on
 * SIGWINCH; Ctrl-] detaches (cli/takeover-terminal.ts, shared with the TUI's `t`).
 */
import type { Command } from "commander";
import { leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { note, printJson, success } from "../output.ts";
import { toNumber } from "../schemas.ts";
import { requestTerminal } from "../takeover-terminal.ts";

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
      const terminal = await requestTerminal(client, sessionId, { readOnly: options.readOnly });
      const end = await terminal.attach({ input: process.stdin, output: process.stdout });
      if (end.kind === "failed") process.stderr.write(`cairn: ${end.reason}\n`);
      process.stderr.write("\r\n[detached]\r\n");
      process.exitCode = end.kind === "failed" ? 1 : 0;
    });
}
