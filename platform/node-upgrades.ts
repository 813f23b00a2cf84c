/**
 * Upgrade requests on Node (docs/api.md#websockets): Node's HTTP server hands them to its
 * 'upgrade' event, never to the app's fetch, so this asks the transport what to do with each
 * (transports/rest/upgrades.ts) and does it: a WebSocket made with `ws` for the takeover terminal,
 * the raw socket for a preview's upgrade (bytes passed to the sandbox server both ways), or an
 * HTTP answer written to the socket.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { Readable, Writable } from "node:stream";
import { WebSocketServer } from "ws";
import type { Upgrades } from "../transports/rest/upgrades.ts";

/** Output queued for one WebSocket past which its viewer is disconnected. */
const slowViewerBytes = 8 * 1_048_576;

function toRequest(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`, {
    method: incoming.method,
    headers,
  });
}

async function writeResponse(socket: Socket, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || "Error"}`];
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection") lines.push(`${name}: ${value}`);
  });
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

export function attachUpgrades(server: Server, upgrades: Upgrades): void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1_048_576 });
  server.on("upgrade", (incoming: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void upgrades(toRequest(incoming))
      .then(async (decision) => {
        if (decision.kind === "response") return writeResponse(socket, decision.response);
        if (decision.kind === "raw") {
          socket.setNoDelay(true);
          return decision.run(
            {
              readable: Readable.toWeb(socket) as ReadableStream<Uint8Array>,
              writable: Writable.toWeb(socket) as WritableStream<Uint8Array>,
            },
            new Uint8Array(head),
          );
        }
        sockets.handleUpgrade(incoming, socket, head, (webSocket) => {
          socket.setNoDelay(true);
          decision.run({
            send: (data) => {
              if (webSocket.readyState !== webSocket.OPEN) return;
              // A viewer that cannot keep up with the terminal is let go rather than buffered for.
              if (webSocket.bufferedAmount > slowViewerBytes) return webSocket.close(1013, "too far behind");
              webSocket.send(data, { binary: true });
            },
            close: (code, reason) => webSocket.close(code, reason),
            onMessage: (listener) =>
              webSocket.on("message", (data, isBinary) => {
                const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
                listener(isBinary ? new Uint8Array(bytes) : bytes.toString("utf8"));
              }),
            onClose: (listener) => webSocket.on("close", listener),
          });
        });
      })
      .catch(() => socket.destroy());
  });
}
