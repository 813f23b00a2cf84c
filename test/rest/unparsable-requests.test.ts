/**
 * Requests the Node server cannot parse, answered before the app sees them: headers past Node's
 * 16 KiB limit get the error envelope and the headers every answer carries, and the server goes
 * on serving. Through a real server and a raw socket, as a client would meet them.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";

/** Sends `request` as it is and returns everything the server wrote before closing. */
function rawExchange(port: number, request: string): Promise<string> {
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

  it("answers a malformed request line with Node's plain 400", async () => {
    const answer = await rawExchange(port(), "NOT A REQUEST\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });
});
