/**
 * Helpers for the preview and takeover-terminal suites: the app served by a real Node server with
 * the upgrade glue of platform/serve-node.ts, a small HTTP + WebSocket echo server to run inside a
 * sandbox (the jail's /usr/bin/node, no packages), and a WebSocket client that collects what it gets.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import WebSocket from "ws";
import { attachUpgrades } from "../../platform/node-upgrades.ts";
import { createUpgrades } from "../../transports/rest/upgrades.ts";
import type { TestPlatform } from "../support/platforms.ts";

export async function serveOverNode(test: TestPlatform): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer(getRequestListener(test.app.fetch));
  attachUpgrades(server, createUpgrades(test.platform));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server answering "hello from PORT PATH" and echoing WebSocket text frames ("echo: …"). */
export const echoServerSource = `const http=require("http"),crypto=require("crypto");const port=Number(process.argv[2]);
const server=http.createServer((q,s)=>{let body="";q.on("data",d=>body+=d);q.on("end",()=>{s.setHeader("content-type","text/plain");s.end("hello from "+port+" "+q.method+" "+q.url+(body?" body="+body:"")+(q.headers.authorization?" auth="+q.headers.authorization:""));});});
server.on("upgrade",(q,sock)=>{const key=crypto.createHash("sha1").update(q.headers["sec-websocket-key"]+"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
sock.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: "+key+"\\r\\n\\r\\n");
let buf=Buffer.alloc(0);sock.on("data",d=>{buf=Buffer.concat([buf,d]);while(buf.length>=6){const op=buf[0]&15,len=buf[1]&127;if(len>125||buf.length<6+len)break;const mask=buf.subarray(2,6),p=Buffer.from(buf.subarray(6,6+len));for(let i=0;i<p.length;i++)p[i]^=mask[i%4];buf=buf.subarray(6+len);
if(op===8){sock.end(Buffer.from([0x88,0]));return;}if(op===1){const out=Buffer.from("echo: "+p.toString());sock.write(Buffer.concat([Buffer.from([0x81,out.length]),out]));}}});});
server.listen(port,"127.0.0.1",()=>console.log("listening"));`;

export interface CollectingSocket {
  socket: WebSocket;
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  text(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function openSocket(url: string, headers: Record<string, string> = {}): CollectingSocket {
  const socket = new WebSocket(url, { headers });
  let received = "";
  const waiters = new Set<() => void>();
  socket.on("message", (data) => {
    received += Buffer.isBuffer(data) ? data.toString("utf8") : String(data);
    for (const waiter of waiters) waiter();
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  opened.catch(() => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return {
    socket,
    opened,
    closed,
    text: () => received,
    waitFor(pattern, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(received);
          if (!match) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match[0]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; got ${JSON.stringify(received.slice(-500))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
