/**
 * An upload the client abandons (it closes the connection while sending the body) is the client's
 * doing, not a server failure: logged as a client abort below error level, never as a 500 or an
 * internal error. A real server on 127.0.0.1 and a raw socket that sends the headers and part of
 * the body, then closes.
 */

import { connect } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCapturingLogger } from "../sandboxes/sandbox-client.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("an aborted upload", () => {
  const logs = createCapturingLogger();
  let test: TestPlatform;
  let server: ServerType;
  let port: number;

  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { logger: logs.logger });
    server = serve({ fetch: test.app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await test.close();
  });

  /** Sends `head` and `partialBody`, closes, and waits until the server has logged the request. */
  async function abandon(head: string, partialBody: string): Promise<string> {
    const before = logs.text().length;
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`${head}\r\n\r\n${partialBody}`);
    // Let the server start reading the body before the connection goes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (let waited = 0; waited < 5000 && !/\binfo request\b/.test(logs.text().slice(before)); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return logs.text().slice(before);
  }

  it.each([
    ["a Content-Length body", "Content-Length: 4000"],
    ["a chunked body", "Transfer-Encoding: chunked"],
    ["a body read by the idempotency layer", "Content-Length: 4000\r\nIdempotency-Key: upload-1"],
  ])("is logged as a client abort, not a 500: %s", async (_name, framing) => {
    const partial = framing.includes("chunked")
      ? 'ff\r\n{"email": "someone@example.com", "pa'
      : '{"email": "a';
    const logged = await abandon(
      `POST /v1/auth/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}`,
      partial,
    );
    expect(logged).toMatch(/\binfo request\b/);
    expect(logged).toContain("client closed the connection before sending the whole request body");
    expect(logged).not.toMatch(/^error /m);
    expect(logged).not.toContain("internal_error");
    expect(logged).not.toMatch(/status: 5\d\d/);
  });

  it("still answers a whole request on the same server", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    expect(response.status).toBe(200);
  });
});
