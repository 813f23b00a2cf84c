/**
 * Requests the Node server cannot parse, answered before the app sees them: headers past Node's
 * 16 KiB limit (413), requests that are not HTTP/1.1 (400) and requests that stall (408) get the
 * error envelope and the headers every answer carries, and the server goes on serving. Through a real server and a raw socket, as a client would meet them.
 */
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerUnparsable } from "../../platform/unparsable-requests.ts";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";

/** Sends `request` as it is and returns everything the server wrote before closing. */
function rawExchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("requests Node cannot parse", () => {
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer();
  });
  afterAll(() => server.close());
  const port = () => Number(new URL(server.baseUrl).port);

  it("answers headers over 16 KiB with the error envelope and the usual headers", async () => {
    for (const request of [
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      `GET /v1/memory/search?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const answer = await rawExchange(port(), request);
      const [head, body] = answer.split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 413 /);
      expect(head).toMatch(/\r\nX-Request-ID: [0-9a-f]{32}\r\n/);
      expect(head).toContain("X-Frame-Options: DENY");
      expect(head).toContain("Content-Security-Policy: frame-ancestors 'none'");
      expect(JSON.parse(body)).toEqual({
        error: {
          code: "payload_too_large",
          message: expect.stringContaining("16 KiB"),
          retryable: false,
          remediation: expect.any(String),
        },
      });
    }
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  });

  it("answers a request that is not HTTP/1.1 with 400 malformed_request in the envelope, echoing nothing", async () => {
    const requests: Array<string | Buffer> = [
      "NOT A REQUEST\r\n\r\n",
      // A raw (not percent-encoded) UTF-8 byte in the URL, as a careless client sends "café".
      Buffer.concat([
        Buffer.from("GET /v1/memory/search?q=caf"),
        Buffer.from("é", "utf8"),
        Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
      ]),
      "GET /health HTTP/1.1\r\nHost: x\r\nBad Header: secret-value\r\n\r\n",
      "POST /v1/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ];
    for (const request of requests) {
      const answer = await rawExchange(port(), request);
      const [head, body] = answer.split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toMatch(/\r\nX-Request-ID: [0-9a-f]{32}\r\n/);
      expect(head).toContain("Content-Type: application/json");
      expect(head).toContain("Connection: close");
      expect(JSON.parse(body)).toEqual({
        error: {
          code: "malformed_request",
          message: expect.stringMatching(/^The request is not valid HTTP\/1\.1/),
          retryable: false,
          remediation: expect.stringContaining("percent-encode"),
        },
      });
      expect(body).not.toContain("secret-value");
    }
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  });

  it("answers a request that stalled past Node's timeout with 408 request_timeout (retryable)", async () => {
    // Node's timeouts are a minute and more, so its clientError is handed over directly.
    const socket = new PassThrough();
    const written: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => written.push(chunk));
    const ended = new Promise((resolve) => socket.on("end", resolve));
    answerUnparsable(
      Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
      socket,
    );
    await ended;
    const [head, body] = Buffer.concat(written).toString().split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(body).error).toMatchObject({ code: "request_timeout", retryable: true });
  });
});
