/**
 * A preview's WebSocket where the server has no raw socket to hand over (Deno): the server ends
 * the client's WebSocket itself and is a WebSocket client of the sandbox's server over the port
 * connection, message by message (RFC 6455: frames from the client side masked, fragmented
 * messages joined, pings answered). No extension is offered upstream, so frames are never
 * compressed; a message over `maxMessageBytes` closes both sides with 1009.
 */
import { concatAll } from "../output-budget.ts";
import { type ByteReader, readAnswer, requestHead } from "./http-exchange.ts";
import type { PortConnection } from "./relay.ts";

export const maxMessageBytes = 16 * 1024 * 1024;

export type SocketMessage = string | Uint8Array;

/** The sandbox server's end of a preview WebSocket. */
export interface SandboxSocket {
  /** The subprotocol the sandbox server chose, or "" for none. */
  protocol: string;
  /** Calls `message` for each message, then `closed` once (the code and reason the server sent, or 1006). */
  listen(message: (data: SocketMessage) => void, closed: (code: number, reason: string) => void): void;
  send(data: SocketMessage): Promise<void>;
  close(code?: number, reason?: string): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Opens the upstream WebSocket: the client's request (without its extensions) written to the
 * sandbox server; its 101 gives the socket, any other answer comes back as the response to pass on.
 */
export async function openSandboxSocket(
  connection: PortConnection,
  request: Request,
  target: string,
  port: number,
): Promise<{ socket: SandboxSocket } | { response: Response }> {
  const headers = new Headers(request.headers);
  headers.delete("sec-websocket-extensions");
  const opening = requestHead(new Request(request.url, { headers }), target, port, { upgrade: true });
  await connection.write(encoder.encode(opening));
  const answer = await readAnswer(connection, "GET", port, true);
  if ("response" in answer) return answer;
  const { headers: answered, bytes } = answer.switched;
  return { socket: sandboxSocket(connection, bytes, answered.get("sec-websocket-protocol") ?? "") };
}

function sandboxSocket(connection: PortConnection, bytes: ByteReader, protocol: string): SandboxSocket {
  let closeSent = false;
  const send = (opcode: number, payload: Uint8Array) => connection.write(frame(opcode, payload));
  const sendClose = async (code: number, reason: string) => {
    if (closeSent) return;
    closeSent = true;
    const body = encoder.encode(reason).subarray(0, 123);
    const payload = new Uint8Array(2 + body.length);
    new DataView(payload.buffer).setUint16(0, code);
    payload.set(body, 2);
    await send(0x8, payload).catch(() => {});
  };
  return {
    protocol,
    listen(message, closed) {
      void (async () => {
        let code = 1006;
        let reason = "";
        let parts: Uint8Array[] = [];
        let partsBytes = 0;
        let partsText = false;
        try {
          for (;;) {
            const read = await readFrame(bytes);
            if (read === null) break;
            const { fin, opcode, payload } = read;
            if (opcode === 0x9) {
              await send(0xa, payload);
              continue;
            }
            if (opcode === 0xa) continue;
            if (opcode === 0x8) {
              code =
                payload.length >= 2 ? new DataView(payload.buffer, payload.byteOffset).getUint16(0) : 1005;
              reason = decoder.decode(payload.subarray(2));
              await sendClose(code === 1005 ? 1000 : code, reason);
              break;
            }
            if (opcode !== 0x0) {
              parts = [];
              partsBytes = 0;
              partsText = opcode === 0x1;
            }
            partsBytes += payload.length;
            if (partsBytes > maxMessageBytes) {
              [code, reason] = [1009, "message too big"];
              await sendClose(code, reason);
              break;
            }
            parts.push(payload);
            if (!fin) continue;
            const whole = concatAll(parts);
            parts = [];
            partsBytes = 0;
            message(partsText ? decoder.decode(whole) : whole);
          }
        } catch (error) {
          [code, reason] = error instanceof FrameError ? [error.code, error.message] : [1006, ""];
          await sendClose(code === 1006 ? 1011 : code, reason);
        }
        connection.close();
        closed(code, reason);
      })();
    },
    send: (data) => (typeof data === "string" ? send(0x1, encoder.encode(data)) : send(0x2, data)),
    async close(code = 1000, reason = "") {
      await sendClose(code, reason);
      connection.close();
    },
  };
}

/** A frame the relay refuses, with the close code saying why (1002 protocol error, 1009 too big). */
class FrameError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** The next frame, or null once the server has closed the connection. */
async function readFrame(
  bytes: ByteReader,
): Promise<{ fin: boolean; opcode: number; payload: Uint8Array } | null> {
  const need = async (count: number) => {
    while (bytes.pending.length < count) if (!(await bytes.fill())) return false;
    return true;
  };
  if (!(await need(2))) return null;
  const [first = 0, second = 0] = bytes.take(2);
  if (first & 0x70) throw new FrameError(1002, "reserved bits set without an extension");
  const masked = (second & 0x80) !== 0;
  let length = second & 0x7f;
  if (length === 126) {
    if (!(await need(2))) return null;
    length = new DataView(bytes.take(2).buffer).getUint16(0);
  } else if (length === 127) {
    if (!(await need(8))) return null;
    const wide = new DataView(bytes.take(8).buffer).getBigUint64(0);
    if (wide > BigInt(maxMessageBytes)) throw new FrameError(1009, "message too big");
    length = Number(wide);
  }
  if (length > maxMessageBytes) throw new FrameError(1009, "message too big");
  const mask = masked ? ((await need(4)) ? bytes.take(4) : null) : undefined;
  if (mask === null) return null;
  // Copied piece by piece as it comes: waiting for it all in the reader would copy what it holds
  // again at every read, quadratic in a 16 MiB frame.
  const payload = new Uint8Array(length);
  for (let filled = 0; filled < length; ) {
    if (bytes.pending.length === 0 && !(await bytes.fill())) return null;
    const piece = bytes.take(Math.min(bytes.pending.length, length - filled));
    payload.set(piece, filled);
    filled += piece.length;
  }
  if (mask) for (let index = 0; index < payload.length; index++) payload[index] ^= mask[index % 4] as number;
  return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload };
}

/** One final frame from the client side, masked (RFC 6455 5.3). */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const lengthBytes = payload.length < 126 ? 0 : payload.length < 65_536 ? 2 : 8;
  const out = new Uint8Array(2 + lengthBytes + 4 + payload.length);
  const view = new DataView(out.buffer);
  out[0] = 0x80 | opcode;
  if (lengthBytes === 0) out[1] = 0x80 | payload.length;
  else if (lengthBytes === 2) {
    out[1] = 0x80 | 126;
    view.setUint16(2, payload.length);
  } else {
    out[1] = 0x80 | 127;
    view.setBigUint64(2, BigInt(payload.length));
  }
  const mask = crypto.getRandomValues(new Uint8Array(4));
  const start = 2 + lengthBytes;
  out.set(mask, start);
  for (let index = 0; index < payload.length; index++)
    out[start + 4 + index] = (payload[index] as number) ^ (mask[index % 4] as number);
  return out;
}
