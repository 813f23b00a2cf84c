/**
 * The takeover terminal's WebSocket, GET /v1/sandboxes/{id}/takeover (docs/api.md#takeover-terminal).
 * Credential: `?token=` (single-use, from POST …/takeover-token) or an admin API key in
 * `Authorization`, which goes through `takeover_token` itself (credential, role, bucket, sandbox,
 * allowlist), so both ways are checked alike. A bad credential closes with 4401, an unknown or
 * another account's sandbox with 4404, a refusal (role, allowlist) with 4403. Then binary frames
 * are keystrokes, raw; a text frame is a JSON control message, `{"type":"resize","rows","cols"}`;
 * what the terminal shows comes back as binary frames.
 */
import { invoke, type Platform, ServiceError } from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";

export const takeoverPathPattern = /^\/v1\/sandboxes\/([^/]{1,64})\/takeover$/;

/** A WebSocket as the server entry gives it (ws's on Node, the standard one on Deno). */
export interface TerminalSocket {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
  onMessage(listener: (data: Uint8Array | string) => void): void;
  onClose(listener: () => void): void;
}

const closeCodes: Record<string, number> = {
  missing_credentials: 4401,
  wrong_credential_type: 4401,
  invalid_api_key: 4401,
  invalid_token: 4401,
  not_found: 4404,
  insufficient_role: 4403,
  command_not_allowed: 4403,
  rate_limited: 4429,
};

const size = (text: string | null, fallback: number) => {
  const value = Number(text);
  return Number.isInteger(value) && value >= 1 && value <= 1000 ? value : fallback;
};

export async function serveTakeover(
  platform: Platform,
  request: Request,
  sessionId: string,
  socket: TerminalSocket,
): Promise<void> {
  const url = new URL(request.url);
  const messages: Array<Uint8Array | string> = [];
  let closed = false;
  let deliver = (data: Uint8Array | string): void => {
    messages.push(data);
  };
  let leave = () => {
    closed = true;
  };
  socket.onMessage((data) => deliver(data));
  socket.onClose(() => leave());
  let token = url.searchParams.get("token");
  const readOnly = url.searchParams.get("read_only") === "true";
  try {
    if (token === null) {
      const tool = platform.tools.find("takeover_token");
      if (!tool) throw new ServiceError("not_found", "Not found");
      const minted = await invoke(platform, tool, {
        credential: bearerCredential(request.headers.get("authorization") ?? undefined),
        clientIp: "unknown",
        requestId: crypto.randomUUID().replaceAll("-", ""),
        signal: new AbortController().signal,
        input: { session_id: sessionId, read_only: readOnly },
      });
      token = (minted.output as { token: string }).token;
    }
    const grant = token === null ? null : platform.terminals.useToken(token);
    if (!grant) throw new ServiceError("invalid_api_key", "The takeover token is unknown, used or expired");
    const session = await platform.storage.sandboxSessions.get(grant.accountId, sessionId);
    if (
      grant.sessionId !== sessionId ||
      session?.status !== "active" ||
      session.expiresAt <= platform.clock.now()
    ) {
      throw new ServiceError("not_found", "Sandbox session not found or not active");
    }
    if (closed) return;
    const terminal = platform.terminals.attach(
      platform.sandboxRuntime,
      sessionId,
      { send: (bytes) => socket.send(bytes), close: (code, reason) => socket.close(code, reason) },
      {
        readOnly: grant.readOnly,
        keyId: grant.keyId,
        rows: size(url.searchParams.get("rows"), 24),
        cols: size(url.searchParams.get("cols"), 80),
      },
    );
    deliver = (data) => {
      if (typeof data !== "string") {
        terminal.input(data);
        return;
      }
      try {
        const control = JSON.parse(data) as { type?: unknown; rows?: unknown; cols?: unknown };
        if (control.type === "resize")
          terminal.resize(size(String(control.rows), 24), size(String(control.cols), 80));
      } catch {}
    };
    leave = () => terminal.detach();
    for (const message of messages.splice(0)) deliver(message);
  } catch (error) {
    const code = error instanceof ServiceError ? (closeCodes[error.code] ?? 1011) : 1011;
    socket.close(code, error instanceof ServiceError ? error.message.slice(0, 120) : "internal error");
  }
}
