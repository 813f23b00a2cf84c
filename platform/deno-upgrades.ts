/**
 * Upgrade requests on Deno (docs/api.md#previews-and-the-takeover-terminal): `Deno.serve` hands
 * them to the handler like any request, and `Deno.upgradeWebSocket` turns one into a WebSocket,
 * so the takeover terminal works as on Node. A preview's upgrade would need the raw socket, which
 * Deno does not give: the server ends the client's WebSocket itself and relays its messages to the
 * sandbox server's WebSocket (core/sandboxes/previews/websocket-relay.ts), with the subprotocol
 * that server chose.
 */
import type { SandboxSocket } from "../core/index.ts";
import type { Upgrades } from "../transports/rest/upgrades.ts";

export type UpgradeWebSocket = (
  request: Request,
  options?: { protocol?: string },
) => { socket: WebSocket; response: Response };

// A close code the protocol lets a peer send; the others (1006: no close frame came) say the
// other side went away.
const sendable = (code: number) =>
  code >= 1000 && code <= 4999 && ![1004, 1005, 1006, 1015].includes(code) ? code : 1001;
// A client further behind than this is let go rather than buffered for.
const maxBehindBytes = 8 * 1_048_576;

export function isUpgrade(request: Request): boolean {
  return request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

export async function serveUpgrade(
  request: Request,
  upgrades: Upgrades,
  upgradeWebSocket: UpgradeWebSocket,
): Promise<Response> {
  const decision = await upgrades(request);
  if (decision.kind === "response") return decision.response;
  if (decision.kind === "raw") {
    const opened = await decision.open();
    if ("response" in opened) return opened.response;
    return relay(request, opened.socket, upgradeWebSocket);
  }
  const { socket, response } = upgradeWebSocket(request);
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () =>
    decision.run({
      send: (data) => {
        if (socket.readyState !== WebSocket.OPEN) return;
        // A viewer that cannot keep up with the terminal is let go rather than buffered for.
        if (socket.bufferedAmount > 8 * 1_048_576) return socket.close(1013, "too far behind");
        socket.send(data);
      },
      close: (code, reason) => socket.close(code, reason),
      onMessage: (listener) =>
        socket.addEventListener("message", (event) =>
          listener(typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer)),
        ),
      onClose: (listener) => socket.addEventListener("close", () => listener()),
    }),
  );
  return response;
}

/** The client's WebSocket, accepted with the sandbox server's subprotocol, relayed to `upstream`. */
function relay(request: Request, upstream: SandboxSocket, upgradeWebSocket: UpgradeWebSocket): Response {
  const { socket, response } = upgradeWebSocket(
    request,
    upstream.protocol === "" ? undefined : { protocol: upstream.protocol },
  );
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () =>
    upstream.listen(
      (data) => {
        if (socket.readyState !== WebSocket.OPEN) return;
        if (socket.bufferedAmount <= maxBehindBytes) return socket.send(data);
        socket.close(1000, "too far behind");
        void upstream.close(1001, "the client fell behind");
      },
      (code, reason) => (code === 1005 ? socket.close() : socket.close(sendable(code), reason)),
    ),
  );
  socket.addEventListener("message", (event) => {
    const data = typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer);
    upstream.send(data).catch(() => socket.close(1000, "the sandbox server is gone"));
  });
  socket.addEventListener(
    "close",
    (event) => void upstream.close(event.code === 1005 ? 1000 : sendable(event.code), event.reason),
  );
  return response;
}
