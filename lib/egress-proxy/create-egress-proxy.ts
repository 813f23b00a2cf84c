/**
 * The allowlisting egress proxy (docs/sandboxes.md#egress-proxy): an HTTP CONNECT and plain-HTTP
 * forward proxy that runs OUTSIDE every sandbox and image builder, on a Unix socket or a loopback
 * port. It lets through exactly the listed host names (exact match, no IP literals) on the
 * allowed ports, resolves each name itself and connects to the address it resolved (so a name
 * cannot be re-pointed between the check and the connection), refuses private, loopback,
 * link-local and metadata addresses unless private egress is allowed, and logs every decision.
 * Anything refused gets 403 and nothing leaves the machine. It runs in the server's process, so
 * what a client can hold open there is bounded: at most `maxConnections` connections at once
 * (each costs the server a descriptor, a tunnel two), and one that sends no request line and
 * headers within 10 s is closed.
 */
import { lookup } from "node:dns/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { isUnsafeAddress } from "../../core/index.ts";
import type { Logger } from "../../core/ports/logger.ts";

export interface EgressProxySettings {
  /** Exact host names a client may reach (compared lower case, without a trailing dot). */
  allowedHosts: readonly string[];
  /** SVC_ALLOW_PRIVATE_EGRESS: let listed names that resolve to private addresses through. */
  allowPrivateEgress: boolean;
  /** A Unix socket path, or a loopback port (0 picks a free one). */
  listen: { path: string } | { port: number };
  /** Ports a client may reach (default 443 and 80). */
  ports?: readonly number[];
  /** A name's addresses (default: the system resolver, every address). */
  resolveHost?: (host: string) => Promise<string[]>;
  /** Connections open at once (default 64); more are closed as they arrive. */
  maxConnections?: number;
  logger: Logger;
}

/** Enough for a sandbox's package manager or MCP client; a few hundred would cost the server
 * as many descriptors for every sandbox. */
export const defaultMaxConnections = 64;
const headersTimeoutMs = 10_000;

export interface EgressProxy {
  /** The socket path, or `127.0.0.1:<port>`. */
  readonly address: string;
  /** Also replaces the allowed hosts of later connections (a session's grants can change). */
  setAllowedHosts(hosts: readonly string[]): void;
  close(): Promise<void>;
}

type Decision = { allowed: true; address: string } | { allowed: false; reason: string };

const systemResolve = async (host: string) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const normalise = (host: string) => host.toLowerCase().replace(/\.$/, "");

/** Splits `host:port` (IPv6 in brackets); null when it is not one. */
export function splitAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return null;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1].replace(/^\[|\]$/g, ""), port } : null;
}

export async function startEgressProxy(settings: EgressProxySettings): Promise<EgressProxy> {
  const ports = new Set(settings.ports ?? [443, 80]);
  const resolve = settings.resolveHost ?? systemResolve;
  let allowed = new Set(settings.allowedHosts.map(normalise));
  const { logger } = settings;
  const sockets = new Set<Socket>();

  async function decide(rawHost: string, port: number): Promise<Decision> {
    const host = normalise(rawHost);
    if (isIP(host) !== 0) return { allowed: false, reason: "ip_literal" };
    if (!allowed.has(host)) return { allowed: false, reason: "host_not_allowed" };
    if (!ports.has(port)) return { allowed: false, reason: "port_not_allowed" };
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch {
      return { allowed: false, reason: "unresolvable" };
    }
    if (addresses.length === 0) return { allowed: false, reason: "unresolvable" };
    if (!settings.allowPrivateEgress && addresses.some(isUnsafeAddress)) {
      return { allowed: false, reason: "private_address" };
    }
    return { allowed: true, address: addresses[0] };
  }

  const log = (kind: string, host: string, port: number, decision: Decision) => {
    if (decision.allowed) logger.info({ kind, host, port, address: decision.address }, "egress allowed");
    else logger.warn({ kind, host, port, reason: decision.reason }, "egress denied");
  };

  const server = createServer(
    { connectionsCheckingInterval: 1000 },
    async (request: IncomingMessage, response: ServerResponse) => {
      let target: URL;
      try {
        target = new URL(request.url ?? "");
      } catch {
        response.writeHead(400, { "content-type": "text/plain" }).end("Absolute http:// URLs only\n");
        return;
      }
      if (target.protocol !== "http:") {
        response.writeHead(403, { "content-type": "text/plain" }).end("Egress denied: http:// only here\n");
        return;
      }
      const port = Number(target.port || 80);
      const host = target.hostname.replace(/^\[|\]$/g, "");
      const decision = await decide(host, port);
      log("http", host, port, decision);
      if (!decision.allowed) {
        response.writeHead(403, { "content-type": "text/plain" }).end(`Egress denied: ${decision.reason}\n`);
        return;
      }
      const headers = { ...request.headers };
      delete headers["proxy-connection"];
      delete headers["proxy-authorization"];
      const upstream = httpRequest(
        {
          host: decision.address,
          port,
          method: request.method,
          path: `${target.pathname}${target.search}`,
          headers: { ...headers, host: target.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on("error", () => {
        if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
        response.end();
      });
      request.pipe(upstream);
    },
  );

  server.on("connect", async (request: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const authority = splitAuthority(request.url ?? "");
    if (!authority) {
      client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const decision = await decide(authority.host, authority.port);
    log("connect", authority.host, authority.port, decision);
    if (!decision.allowed) {
      const body = `Egress denied: ${decision.reason}\n`;
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = connect({ host: decision.address, port: authority.port });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => {
      if (client.writable) client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      client.destroy();
    });
    client.on("close", () => upstream.destroy());
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.maxConnections = settings.maxConnections ?? defaultMaxConnections;
  server.on("drop", () =>
    logger.warn({ limit: server.maxConnections }, "egress connection refused: too many open"),
  );
  // A client that connects and sends nothing is closed, not kept (Node checks every second here).
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = headersTimeoutMs * 3;

  const address = await new Promise<string>((resolveAddress, reject) => {
    server.once("error", reject);
    if ("path" in settings.listen) {
      const path = settings.listen.path;
      server.listen(path, () => resolveAddress(path));
    } else {
      server.listen(settings.listen.port, "127.0.0.1", () => {
        const bound = server.address();
        resolveAddress(typeof bound === "object" && bound ? `127.0.0.1:${bound.port}` : "");
      });
    }
  });

  return {
    address,
    setAllowedHosts(hosts) {
      allowed = new Set(hosts.map(normalise));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}
