/**
 * Requests that leave HTTP (docs/api.md#websockets): the takeover terminal's WebSocket
 * (takeover-socket.ts) and WebSocket (or any upgrade) traffic of a preview, which is passed to
 * the sandbox server raw, bytes both ways. The server entry asks `route` what to do with an
 * upgrade request and does it with its runtime's sockets (platform/node-upgrades.ts on Node).
 */
import {
  openSandboxSocket,
  type Platform,
  type PortConnection,
  previewRequestHead,
  type SandboxSocket,
  ServiceError,
} from "../../core/index.ts";
import { httpStatus } from "../http-status.ts";
import { authorizePreview, previewTarget, withoutCairnKey } from "./preview-routes.ts";
import { serveTakeover, type TerminalSocket, takeoverPathPattern } from "./takeover-socket.ts";

/** The client's socket, as web streams. */
export interface RawSocket {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export type UpgradeDecision =
  /** Accept a WebSocket and hand it over. */
  | { kind: "websocket"; run(socket: TerminalSocket): void }
  /**
   * Pass the connection through: `head` are bytes the client sent after the request head. A
   * server without raw sockets (Deno) opens the sandbox server's WebSocket instead and relays
   * messages (core/sandboxes/previews/websocket-relay.ts).
   */
  | {
      kind: "raw";
      run(socket: RawSocket, head: Uint8Array): Promise<void>;
      open(): Promise<{ socket: SandboxSocket } | { response: Response }>;
    }
  /** Answer with this and close. */
  | { kind: "response"; response: Response };

export type Upgrades = (request: Request) => Promise<UpgradeDecision>;

function errorResponse(error: ServiceError): Response {
  return new Response(JSON.stringify({ error: error.toBody() }), {
    status: httpStatus(error.code),
    headers: { "content-type": "application/json", "X-Request-ID": crypto.randomUUID().replaceAll("-", "") },
  });
}

async function pipeToPort(connection: PortConnection, socket: RawSocket, head: Uint8Array, opening: string) {
  await connection.write(new TextEncoder().encode(opening));
  if (head.length > 0) await connection.write(head);
  const upstream = (async () => {
    const reader = socket.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) break;
      await connection.write(value);
    }
    await connection.end();
  })();
  const downstream = connection.readable.pipeTo(socket.writable).catch(() => {});
  await Promise.race([upstream, downstream]);
  connection.close();
}

export function createUpgrades(platform: Platform): Upgrades {
  return async (request) => {
    const path = new URL(request.url).pathname;
    const takeover = takeoverPathPattern.exec(path);
    const aimed = previewTarget(request, platform.config);
    if (aimed) {
      try {
        const record = await authorizePreview(platform, aimed);
        const connection = await platform.previews.connect(
          platform.sandboxRuntime,
          record.sessionId,
          record.port,
        );
        const opening = previewRequestHead(withoutCairnKey(request), aimed.target, record.port, {
          upgrade: true,
        });
        return {
          kind: "raw",
          run: (socket, head) => pipeToPort(connection, socket, head, opening),
          open: () => openSandboxSocket(connection, withoutCairnKey(request), aimed.target, record.port),
        };
      } catch (error) {
        const refusal =
          error instanceof ServiceError ? error : new ServiceError("internal_error", "Internal error");
        return { kind: "response", response: errorResponse(refusal) };
      }
    }
    if (takeover) {
      const sessionId = takeover[1] ?? "";
      return { kind: "websocket", run: (socket) => void serveTakeover(platform, request, sessionId, socket) };
    }
    return {
      kind: "response",
      response: errorResponse(new ServiceError("not_found", "Not found")),
    };
  };
}
