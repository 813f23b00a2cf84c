/**
 * Upgrade requests on Deno (docs/api.md#previews-and-the-takeover-terminal): `Deno.serve` hands
 * them to the handler like any request, and `Deno.upgradeWebSocket` turns one into a WebSocket,
 * so the takeover terminal works as on Node. A preview's upgrade needs the raw socket, which Deno
 * does not give: it is answered 501.
 */
import type { Upgrades } from "../transports/rest/upgrades.ts";

export type UpgradeWebSocket = (request: Request) => { socket: WebSocket; response: Response };

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
    return Response.json(
      {
        error: {
          code: "service_unavailable",
          message: "Preview WebSockets need the Node server; this Deno server passes preview HTTP only",
          retryable: false,
        },
      },
      { status: 501 },
    );
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
