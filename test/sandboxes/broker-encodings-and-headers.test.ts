/**
 * The HTTP broker (docs/api.md#http-broker, core/sandboxes/broker/BROKER.md) against a real HTTP server on the
 * host's loopback, for issue 7's findings 5 to 7: a secret echoed back as base64 (at any offset
 * in a longer blob, wrapped), base64url or hex is redacted; a caller-set Host, hop-by-hop headers
 * and headers HTTP cannot carry are refused before anything is sent; a host name that does not
 * resolve is a non-retryable 422.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ErrorBody,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

const value = `tok "${crypto.randomUUID()}"/+x`;
const unicodeValue = `ünï-${crypto.randomUUID()}-çödé`;
// Requests that reached the server: a refused request must never be among them.
let received = 0;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received += 1;
      if (request.url === "/encoded") {
        // The body echoed as services encode it: a contents API's base64 file with the body at each
        // byte offset mod 3 (wrapped every 60 characters), base64url, and hex in both cases.
        const echoed = Buffer.from(body);
        const files = [0, 1, 2].map((offset) =>
          Buffer.concat([Buffer.from(`${"#".repeat(30 + offset)}\n`), echoed, Buffer.from("\nend\n")])
            .toString("base64")
            .replace(/.{60}/g, "$&\n"),
        );
        response.writeHead(200, {
          "content-type": "application/json",
          "x-echo-base64": echoed.toString("base64"),
          "x-echo-hex": echoed.toString("hex").toUpperCase(),
          [`x-named-${echoed.toString("hex")}`]: "in the name",
        });
        response.end(
          JSON.stringify({
            files: files.map((content) => ({
              content,
              encoding: "base64",
              sha: "3f786850e387550fdab836ed7e6dc881de23001b",
            })),
            base64url: echoed.toString("base64url"),
            hex: echoed.toString("hex"),
            unrelated: Buffer.from("an unrelated file\n").toString("base64"),
          }),
        );
        return;
      }
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the broker's encodings, header refusals and name resolution", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const broker = (json: Record<string, unknown>) => client.httpRequest(sessionId, json);

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { environment: { SVC_ALLOW_PRIVATE_EGRESS: "true" } });
    client = await createSandboxClient(test);
    const secrets = [
      { name: "token", value, allowed_hosts: ["127.0.0.1"] },
      { name: "unicode", value: unicodeValue, allowed_hosts: ["127.0.0.1"] },
      { name: "multiline", value: "line one\r\nX-Injected: yes", allowed_hosts: ["127.0.0.1"] },
    ];
    for (const json of secrets) {
      expect((await client.sendJson("/v1/secrets", { method: "POST", json })).status).toBe(201);
    }
    sessionId = (await client.createActive({ secret_names: ["token", "unicode", "multiline"] })).id;
  });
  afterAll(() => test.close());

  it("redacts the value echoed as base64 at any offset, base64url and hex, and nothing else", async () => {
    for (const name of ["token", "unicode"]) {
      const response = await broker({
        method: "POST",
        url: `${base}/encoded`,
        body: `{{secret:${name}}}`,
      });
      expect(response.status).toBe(200);
      const answer = response.body;
      expect(answer.headers["x-echo-base64"]).toBe("[REDACTED]");
      expect(answer.headers["x-echo-hex"]).toBe("[REDACTED]");
      expect(answer.headers["x-named-[REDACTED]"]).toBe("in the name");
      const echoed = JSON.parse(answer.body);
      expect(echoed).toEqual({
        files: [0, 1, 2].map(() => ({
          content: expect.stringMatching(/^\[REDACTED\]\n?$/),
          encoding: "base64",
          sha: "3f786850e387550fdab836ed7e6dc881de23001b",
        })),
        base64url: "[REDACTED]",
        hex: "[REDACTED]",
        unrelated: Buffer.from("an unrelated file\n").toString("base64"),
      });
    }
  });

  it("refuses a caller-set Host, hop-by-hop headers and Content-Length with 422, sending nothing", async () => {
    const before = received;
    const refused = [
      "Host",
      "host",
      "HOST",
      "Connection",
      "keep-alive",
      "Proxy-Authenticate",
      "Proxy-Authorization",
      "proxy-connection",
      "TE",
      "Trailer",
      "Trailers",
      "Transfer-Encoding",
      "Upgrade",
      "Content-Length",
    ];
    for (const name of refused) {
      // With a secret and without: the rule does not depend on what else the request carries.
      for (const headers of [{ Authorization: "Bearer {{secret:token}}", [name]: "x" }, { [name]: "x" }]) {
        const response = await broker({ url: `${base}/`, headers });
        expect([name, response.status, errorCode(response.body)]).toEqual([name, 422, "validation_error"]);
        expect(errorDetails(response.body)).toEqual([
          expect.objectContaining({ loc: ["body", "headers", name], msg: expect.stringContaining(name) }),
        ]);
        expect((response.body as unknown as ErrorBody).error.retryable).toBe(false);
      }
    }
    const malformed: Array<[string, Record<string, string>]> = [
      ["X-A", { "X-A": "a\r\nX-B: b" }],
      ["X-Nul", { "X-Nul": "a\u0000b" }],
      ["Bad Name", { "Bad Name": "x" }],
      ["X-Colon:", { "X-Colon:": "x" }],
      // A value that is fine until a secret holding a line break is put in it.
      ["X-Secret", { "X-Secret": "{{secret:multiline}}" }],
    ];
    for (const [name, headers] of malformed) {
      const response = await broker({ url: `${base}/`, headers });
      expect([name, response.status, errorCode(response.body)]).toEqual([name, 422, "validation_error"]);
      expect(errorDetails(response.body)).toEqual([
        expect.objectContaining({ loc: ["body", "headers", name] }),
      ]);
      expect(JSON.stringify(response.body)).not.toContain("X-Injected");
    }
    expect(received).toBe(before);
  });

  it("answers a host name that does not resolve with a non-retryable 422, naming the url", async () => {
    // RFC 6761: `.invalid` never resolves.
    for (const url of ["http://nothing.invalid/", "https://cairn-test.nothing.invalid:8443/path"]) {
      const response = await broker({ url });
      expect([url, response.status, errorCode(response.body)]).toEqual([url, 422, "validation_error"]);
      expect((response.body as unknown as ErrorBody).error.retryable).toBe(false);
      expect(errorDetails(response.body)).toEqual([
        expect.objectContaining({ loc: ["body", "url"], msg: expect.stringContaining("does not resolve") }),
      ]);
    }
  });
});
