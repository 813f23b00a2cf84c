/**
 * The egress proxy against servers on loopback (private egress allowed where a test says so, as
 * loopback is a private address): a listed host connects through CONNECT and plain HTTP, and an
 * unlisted host, an IP literal, a port off the list and a name resolving to a private address
 * without the allowance are all refused with 403 and never reach the server.
 */
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../core/ports/logger.ts";
import { type EgressProxy, splitAuthority, startEgressProxy } from "./create-egress-proxy.ts";

const decisions: Array<{ level: string; fields: object; message?: string }> = [];
const recordingLogger: Logger = {
  debug() {},
  info: (fields, message) => decisions.push({ level: "info", fields, message }),
  warn: (fields, message) => decisions.push({ level: "warn", fields, message }),
  error() {},
  child: () => recordingLogger,
};

let echoServer: Server;
let echoPort: number;
let reached = 0;
let httpServer: ReturnType<typeof createHttpServer>;
let httpPort: number;
let directory: string;

const resolveHost = async (host: string) =>
  ({ "allowed.test": ["127.0.0.1"], "also-allowed.test": ["127.0.0.1"], "web.test": ["127.0.0.1"] })[host] ??
  [];

beforeAll(async () => {
  echoServer = createServer((socket) => {
    reached += 1;
    socket.on("data", (data) => socket.write(`echo:${data}`));
    socket.on("error", () => {});
  });
  echoServer.listen(0, "127.0.0.1");
  await once(echoServer, "listening");
  echoPort = (echoServer.address() as { port: number }).port;
  httpServer = createHttpServer((request, response) => {
    response.end(`served ${request.url} for ${request.headers.host}`);
  });
  httpServer.listen(0, "127.0.0.1");
  await once(httpServer, "listening");
  httpPort = (httpServer.address() as { port: number }).port;
  directory = await mkdtemp(join(tmpdir(), "cairn-egress-"));
});

afterAll(async () => {
  echoServer.close();
  httpServer.close();
  await rm(directory, { recursive: true, force: true });
});

function connectTo(proxy: EgressProxy): Socket {
  const address = proxy.address;
  if (address.startsWith("/")) return netConnect(address);
  const [host, port] = address.split(":");
  return netConnect(Number(port), host);
}

/** Sends CONNECT authority and returns the proxy's status line and the open socket. */
async function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: string; socket: Socket }> {
  const socket = connectTo(proxy);
  await once(socket, "connect");
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const [chunk] = (await once(socket, "data")) as [Buffer];
  return { status: chunk.toString().split("\r\n")[0], socket };
}

async function roundTrip(socket: Socket, text: string): Promise<string> {
  socket.write(text);
  const [chunk] = (await once(socket, "data")) as [Buffer];
  return chunk.toString();
}

async function plainGet(proxy: EgressProxy, url: string): Promise<{ status: number; body: string }> {
  const socket = connectTo(proxy);
  await once(socket, "connect");
  socket.write(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n\r\n`);
  let text = "";
  socket.on("data", (chunk) => {
    text += chunk.toString();
  });
  await once(socket, "close");
  const [head, ...body] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body: body.join("\r\n\r\n") };
}

describe("the egress proxy with private egress allowed (loopback test servers)", () => {
  let proxy: EgressProxy;
  beforeAll(async () => {
    proxy = await startEgressProxy({
      allowedHosts: ["allowed.test", "Web.Test"],
      allowPrivateEgress: true,
      listen: { port: 0 },
      ports: [echoPort, httpPort],
      resolveHost,
      logger: recordingLogger,
    });
  });
  afterAll(() => proxy.close());

  it("tunnels to a listed host, to the address it resolved", async () => {
    const before = reached;
    const { status, socket } = await tunnel(proxy, `allowed.test:${echoPort}`);
    expect(status).toBe("HTTP/1.1 200 Connection Established");
    expect(await roundTrip(socket, "ping")).toBe("echo:ping");
    socket.destroy();
    expect(reached).toBe(before + 1);
    expect(decisions).toContainEqual({
      level: "info",
      fields: { kind: "connect", host: "allowed.test", port: echoPort, address: "127.0.0.1" },
      message: "egress allowed",
    });
  });

  it("forwards plain HTTP to a listed host with its Host header", async () => {
    const answer = await plainGet(proxy, `http://web.test:${httpPort}/path?q=1`);
    expect(answer).toEqual({ status: 200, body: `served /path?q=1 for web.test:${httpPort}` });
  });

  it.each([
    // The echo server's port is known only once it listens.
    ["an unlisted host", "also-allowed.test:ECHO", "host_not_allowed"],
    ["an IP literal", "127.0.0.1:ECHO", "ip_literal"],
    ["an IPv6 literal", "[::1]:ECHO", "ip_literal"],
    ["a port off the list", "allowed.test:22", "port_not_allowed"],
  ])("refuses %s with 403 and never reaches the server", async (_case, authority, reason) => {
    const before = reached;
    const { status, socket } = await tunnel(proxy, authority.replace("ECHO", String(echoPort)));
    socket.destroy();
    expect(status).toBe("HTTP/1.1 403 Forbidden");
    expect(reached).toBe(before);
    expect(decisions.at(-1)).toMatchObject({ level: "warn", fields: { kind: "connect", reason } });
  });

  it("refuses plain HTTP to an unlisted host and to an IP literal", async () => {
    expect((await plainGet(proxy, `http://also-allowed.test:${httpPort}/`)).status).toBe(403);
    expect((await plainGet(proxy, `http://127.0.0.1:${httpPort}/`)).status).toBe(403);
  });
});

describe("the egress proxy without the private-egress allowance, on a Unix socket", () => {
  it("refuses a listed host that resolves to a private address", async () => {
    const proxy = await startEgressProxy({
      allowedHosts: ["allowed.test"],
      allowPrivateEgress: false,
      listen: { path: join(directory, "proxy.sock") },
      ports: [echoPort],
      resolveHost,
      logger: recordingLogger,
    });
    try {
      const before = reached;
      const { status, socket } = await tunnel(proxy, `allowed.test:${echoPort}`);
      socket.destroy();
      expect(status).toBe("HTTP/1.1 403 Forbidden");
      expect(reached).toBe(before);
      expect(decisions.at(-1)).toMatchObject({ fields: { reason: "private_address" } });
    } finally {
      await proxy.close();
    }
  });

  it("takes only the default ports 443 and 80 when none are given", async () => {
    const proxy = await startEgressProxy({
      allowedHosts: ["allowed.test"],
      allowPrivateEgress: true,
      listen: { port: 0 },
      resolveHost,
      logger: recordingLogger,
    });
    try {
      const { status, socket } = await tunnel(proxy, `allowed.test:${echoPort}`);
      socket.destroy();
      expect(status).toBe("HTTP/1.1 403 Forbidden");
      expect(decisions.at(-1)).toMatchObject({ fields: { reason: "port_not_allowed" } });
    } finally {
      await proxy.close();
    }
  });
});

describe("splitAuthority", () => {
  it("splits host:port and bracketed IPv6, and refuses anything else", () => {
    expect(splitAuthority("example.com:443")).toEqual({ host: "example.com", port: 443 });
    expect(splitAuthority("[::1]:80")).toEqual({ host: "::1", port: 80 });
    expect(splitAuthority("example.com")).toBeNull();
    expect(splitAuthority("example.com:0")).toBeNull();
    expect(splitAuthority("a:b:443")).toBeNull();
  });
});

describe("what a client can hold open in the proxy", () => {
  it("closes connections past the limit as they arrive, and one that sends no request in time", async () => {
    const proxy = await startEgressProxy({
      allowedHosts: ["allowed.test"],
      allowPrivateEgress: true,
      listen: { path: join(directory, "limited.sock") },
      ports: [echoPort],
      resolveHost,
      maxConnections: 3,
      logger: recordingLogger,
    });
    try {
      const held = await Promise.all([0, 1, 2].map(() => tunnel(proxy, `allowed.test:${echoPort}`)));
      expect(held.map(({ status }) => status)).toEqual(Array(3).fill("HTTP/1.1 200 Connection Established"));
      // A fourth is closed at once, without an answer.
      const extra = connectTo(proxy);
      extra.on("error", () => {});
      await once(extra, "close");
      expect(decisions.some((entry) => entry.message === "egress connection refused: too many open")).toBe(
        true,
      );
      // Once one closes, a new connection gets through.
      held[0].socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await tunnel(proxy, `allowed.test:${echoPort}`);
      expect(again.status).toBe("HTTP/1.1 200 Connection Established");
      for (const { socket } of [...held, again]) socket.destroy();

      // A connection that sends nothing is closed by the proxy (10 s headers timeout; Node's own
      // default, 60 s, would outlast this test's 30 s).
      const silent = connectTo(proxy);
      silent.on("error", () => {});
      await once(silent, "connect");
      await once(silent, "close");
    } finally {
      await proxy.close();
    }
  }, 30_000);
});
