/**
 * The body limit and the headers every answer carries, over a real socket (Node's own framing):
 * a declared Content-Length over the limit is refused before any body is read, a chunked body as
 * it streams past the limit, and an answer whose headers cannot change still gets the request id
 * and framing headers.
 */

import { connect } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../transports/rest/create-app.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("the body limit over a socket", () => {
  let test: TestPlatform;
  let server: ServerType;
  let port: number;

  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { environment: { SVC_MAX_BODY_BYTES: "2048" } });
    const app = createApp(test.platform);
    // A fetched answer's headers are immutable (whatever Response the server put in place).
    app.get("/probe", () => fetch("data:text/plain,fetched"));
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await test.close();
  });

  /** Writes `request` in one piece and reads until the server has answered and closed. */
  async function exchange(request: string): Promise<string> {
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(request);
    await closed;
    return Buffer.concat(chunks).toString("utf8");
  }

  const head = (framing: string) =>
    `POST /v1/auth/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n${framing}\r\n\r\n`;

  it("refuses a declared length over the limit without waiting for the body", async () => {
    // Only the head is sent: an answer proves nothing waited for the 5,000 bytes declared.
    const answer = await exchange(head("Content-Length: 5000"));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(answer).toMatch(/^X-Request-ID: [0-9a-f]{32}\r$/im);
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const chunk = "x".repeat(1000);
    const chunks = Array.from({ length: 3 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join("");
    const answer = await exchange(`${head("Transfer-Encoding: chunked")}${chunks}0\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it("reads a body within the limit, declared or chunked", async () => {
    const body = JSON.stringify({ email: "socket@example.com", password: "long-enough-password" });
    const declared = await exchange(`${head(`Content-Length: ${Buffer.byteLength(body)}`)}${body}`);
    expect(declared).toMatch(/^HTTP\/1\.1 201 /);
    const again = JSON.stringify({ email: "socket2@example.com", password: "long-enough-password" });
    const chunked = await exchange(
      `${head("Transfer-Encoding: chunked")}${Buffer.byteLength(again).toString(16)}\r\n${again}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 201 /);
  });

  it("adds the request id and framing headers to an answer whose headers cannot change", async () => {
    const answer = await exchange(
      "GET /probe HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: probe-1\r\nConnection: close\r\n\r\n",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\n\r\nfetched$/);
    expect(answer).toMatch(/^X-Request-ID: probe-1\r$/im);
    expect(answer).toMatch(/^X-Frame-Options: DENY\r$/im);
    expect(answer).toMatch(/^X-Content-Type-Options: nosniff\r$/im);
  });
});
