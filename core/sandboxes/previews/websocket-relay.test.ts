/**
 * The WebSocket client a preview's socket uses where the server has no raw socket (Deno), against
 * a real WebSocket server (the `ws` package) over a real TCP connection: text and binary messages
 * of every length encoding, fragmented messages joined, pings answered, the subprotocol the
 * server chose, its close code and reason, an answer other than 101 passed on, and a message over
 * the limit refused with 1009.
 */
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import type { PortConnection } from "./relay.ts";
import {
  maxMessageBytes,
  openSandboxSocket,
  type SandboxSocket,
  type SocketMessage,
} from "./websocket-relay.ts";

let server: Server;
let sockets: WebSocketServer;
let port: number;
/** What the test's current server-side socket should do once connected. */
let onConnection: (socket: WebSocket) => void = () => {};
/** The extensions the last upgrade request offered. */
let offeredExtensions: string | undefined;

beforeAll(async () => {
  server = createServer((_request, response) => response.writeHead(404).end("no such page"));
  sockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => (offered.has("chat.v2") ? "chat.v2" : false),
  });
  server.on("upgrade", (request, socket, head) => {
    offeredExtensions = request.headers["sec-websocket-extensions"];
    if (request.url === "/missing") {
      socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 7\r\n\r\nmissing");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (upgraded) => onConnection(upgraded));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  sockets.close();
  await new Promise((resolve) => server.close(resolve));
});

/** A connection to the test server, as the preview relay gives one. */
function portConnection(): PortConnection {
  const socket = connect(port, "127.0.0.1");
  return {
    refused: new Promise((resolve) => {
      socket.once("connect", () => resolve(false));
      socket.once("error", () => resolve(true));
    }),
    readable: Readable.toWeb(socket) as ReadableStream<Uint8Array>,
    write: (bytes) =>
      new Promise((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve()))),
    end: () => new Promise((resolve) => socket.end(resolve)),
    close: () => void socket.destroy(),
  };
}

function upgradeRequest(path: string, protocols?: string): Request {
  const headers = new Headers({
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64"),
    "sec-websocket-version": "13",
    "sec-websocket-extensions": "permessage-deflate; client_max_window_bits",
  });
  if (protocols) headers.set("sec-websocket-protocol", protocols);
  return new Request(`http://preview.example${path}`, { headers });
}

async function open(path = "/", protocols?: string) {
  const opened = await openSandboxSocket(portConnection(), upgradeRequest(path, protocols), path, port);
  if (!("socket" in opened)) throw new Error(`no socket: ${opened.response.status}`);
  const received: SocketMessage[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    opened.socket.listen(
      (message) => received.push(message),
      (code, reason) => resolve({ code, reason }),
    ),
  );
  return { socket: opened.socket as SandboxSocket, received, closed };
}

describe("a preview's WebSocket relayed message by message", () => {
  it("echoes text and binary of every length encoding, offers no compression", async () => {
    onConnection = (upgraded) => {
      upgraded.on("message", (data, binary) => upgraded.send(binary ? data : `echo: ${data}`, { binary }));
    };
    const { socket, received } = await open();
    const medium = new Uint8Array(70_000).map((_, index) => index % 251);
    const large = "x".repeat(200_000);
    await socket.send("hello");
    await socket.send(medium);
    await socket.send(large);
    await expect.poll(() => received.length).toBe(3);
    expect(received[0]).toBe("echo: hello");
    expect(received[1]).toEqual(medium);
    expect(received[2]).toBe(`echo: ${large}`);
    expect(offeredExtensions).toBeUndefined();
    await socket.close();
  });

  it("joins fragmented messages and answers pings", async () => {
    let ponged = false;
    onConnection = (upgraded) => {
      upgraded.on("pong", () => {
        ponged = true;
      });
      upgraded.ping(Buffer.from("are you there"));
      upgraded.send("frag", { fin: false });
      upgraded.send("mented", { fin: false });
      upgraded.send(" message", { fin: true });
    };
    const { socket, received } = await open();
    await expect.poll(() => received).toEqual(["fragmented message"]);
    await expect.poll(() => ponged).toBe(true);
    await socket.close();
  });

  it("takes the subprotocol the server chose, and hears its close code and reason", async () => {
    onConnection = (upgraded) => upgraded.close(4001, "done here");
    const { socket, closed } = await open("/", "chat.v1, chat.v2");
    expect(socket.protocol).toBe("chat.v2");
    expect(await closed).toEqual({ code: 4001, reason: "done here" });
  });

  it("passes on an answer other than 101", async () => {
    const opened = await openSandboxSocket(portConnection(), upgradeRequest("/missing"), "/missing", port);
    expect("response" in opened && opened.response.status).toBe(404);
    expect("response" in opened && (await opened.response.text())).toBe("missing");
  });

  it("closes with 1009 on a message over the limit", async () => {
    let serverSaw: number | undefined;
    onConnection = (upgraded) => {
      upgraded.on("close", (code) => {
        serverSaw = code;
      });
      upgraded.send(Buffer.alloc(maxMessageBytes + 1));
    };
    const { received, closed } = await open();
    expect(await closed).toMatchObject({ code: 1009 });
    expect(received).toEqual([]);
    await expect.poll(() => serverSaw).toBe(1009);
  });
});
