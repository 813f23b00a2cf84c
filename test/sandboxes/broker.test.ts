/**
 * The HTTP broker (docs/api.md#http-broker) against a real HTTP server on the host's loopback that
 * echoes what it receives: `{{secret:name}}` is substituted only for a secret granted to the
 * session and sent to one of its allowed hosts, the value is redacted from what comes back, and
 * without SVC_ALLOW_PRIVATE_EGRESS the broker does not reach private addresses at all.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createCapturingLogger,
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

// Quote, slash, plus and space: the echo returns it JSON-escaped and URL-encoded as well.
const value = `tok "${crypto.randomUUID()}"/+x`;
const unicodeValue = `ünï-${crypto.randomUUID()}-çödé`;
const received: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }> = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      if (request.url?.startsWith("/pad/")) {
        // Filler up to a length the caller picks, then the body echoed: a value straddling the cap.
        response.end("x".repeat(Number(request.url.slice(5))) + body);
        return;
      }
      if (request.url === "/hang") return;
      if (request.url === "/drip") {
        // A byte every 200 ms for 20 s: never idle long enough for an idle timeout to fire.
        response.writeHead(200);
        let sent = 0;
        const timer = setInterval(() => {
          if (++sent >= 100 || response.destroyed) {
            clearInterval(timer);
            response.end();
          } else response.write("x");
        }, 200);
        return;
      }
      if (request.url === "/redirect") {
        response.writeHead(302, { location: "http://api.example.com/stolen" });
        response.end();
        return;
      }
      const seen = { method: request.method!, url: request.url!, headers: request.headers, body };
      received.push(seen);
      const authorization = String(request.headers.authorization ?? "");
      response.writeHead(request.url === "/missing" ? 404 : 200, {
        "content-type": "application/json",
        "x-echo-authorization": authorization,
        "x-echo-encoded": encodeURIComponent(authorization),
      });
      response.end(JSON.stringify({ ...seen, encoded: encodeURIComponent(body) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const broker = (client: SandboxClient, sessionId: string, json: Record<string, unknown>) =>
  client.httpRequest(sessionId, json);

describe("the broker with SVC_ALLOW_PRIVATE_EGRESS", () => {
  const clock = createFakeClock(new Date("2026-06-01T10:00:00Z"));
  const logs = createCapturingLogger();
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      clock,
      logger: logs.logger,
      environment: { SVC_ALLOW_PRIVATE_EGRESS: "true" },
    });
    client = await createSandboxClient(test);
    const secrets = [
      { name: "token", value, allowed_hosts: ["127.0.0.1"] },
      { name: "elsewhere", value: "elsewhere-value", allowed_hosts: ["api.example.com"] },
      { name: "ungranted", value: "ungranted-value", allowed_hosts: ["127.0.0.1"] },
      { name: "unicode", value: unicodeValue, allowed_hosts: ["127.0.0.1"] },
    ];
    for (const json of secrets) {
      expect((await client.sendJson("/v1/secrets", { method: "POST", json })).status).toBe(201);
    }
    sessionId = (await client.createActive({ secret_names: ["token", "elsewhere", "unicode"] })).id;
  });
  afterAll(() => test.close());

  it("substitutes a granted secret for its allowed host and redacts it from the answer", async () => {
    clock.advance(60_000);
    const response = await broker(client, sessionId, {
      method: "post",
      url: `${base}/echo?q=1`,
      headers: { Authorization: "Bearer {{secret:token}}", "X-Plain": "kept" },
      body: "payload={{secret:token}}&other=1",
    });
    expect(response.status).toBe(200);
    const seen = received.at(-1)!;
    expect(seen).toMatchObject({ method: "POST", url: "/echo?q=1", body: `payload=${value}&other=1` });
    expect(seen.headers).toMatchObject({ authorization: `Bearer ${value}`, "x-plain": "kept" });

    const answer = response.body;
    expect(answer).toMatchObject({ status_code: 200, truncated: false });
    expect(answer.headers["x-echo-authorization"]).toBe("Bearer [REDACTED]");
    expect(answer.headers["x-echo-encoded"]).toBe(`${encodeURIComponent("Bearer ")}[REDACTED]`);
    const echoed = JSON.parse(answer.body);
    expect(echoed).toMatchObject({ body: "payload=[REDACTED]&other=1", headers: { "x-plain": "kept" } });
    expect(echoed.headers.authorization).toBe("Bearer [REDACTED]");
    expect(echoed.encoded).toBe(`payload%3D[REDACTED]%26other%3D1`);
    const whole = JSON.stringify(answer);
    for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) {
      expect(whole).not.toContain(form);
    }

    const secrets = (
      await client.sendJson<Array<{ name: string; last_used_at: string | null }>>("/v1/secrets")
    ).body;
    const used = Object.fromEntries(secrets.map((secret) => [secret.name, secret.last_used_at]));
    expect(used).toEqual({
      token: clock.now().toISOString(),
      elsewhere: null,
      ungranted: null,
      unicode: null,
    });
  });

  it("passes the upstream status through and sends requests without placeholders unchanged", async () => {
    const response = await broker(client, sessionId, { url: `${base}/missing`, headers: { "X-A": "b" } });
    expect(response.body).toMatchObject({ status_code: 404 });
    expect(received.at(-1)).toMatchObject({ method: "GET", url: "/missing" });
  });

  it("refuses with egress_denied, sending nothing, for a wrong host or an ungranted secret", async () => {
    const before = received.length;
    const refusals: Array<[string, Record<string, unknown>]> = [
      ["host not allowed for the secret", { url: `${base}/`, headers: { A: "{{secret:elsewhere}}" } }],
      [
        "same server, other spelling",
        { url: base.replace("127.0.0.1", "localhost"), body: "{{secret:token}}" },
      ],
      ["granted to no session", { url: `${base}/`, headers: { A: "{{secret:ungranted}}" } }],
      ["no such secret", { url: `${base}/`, body: "{{secret:nothing}}" }],
      [
        "one bad placeholder among good ones",
        { url: `${base}/`, headers: { A: "{{secret:token}}", B: "{{secret:elsewhere}}" } },
      ],
    ];
    for (const [why, json] of refusals) {
      const response = await broker(client, sessionId, json);
      expect([why, response.status, errorCode(response.body)]).toEqual([why, 403, "egress_denied"]);
      expect(JSON.stringify(response.body)).not.toContain(value);
    }
    expect(received.length).toBe(before);
    // Another session of the same account holds no grant at all.
    const bare = await client.createActive();
    const ungranted = await broker(client, bare.id, { url: `${base}/`, headers: { A: "{{secret:token}}" } });
    expect([ungranted.status, errorCode(ungranted.body)]).toEqual([403, "egress_denied"]);
    expect(received.length).toBe(before);
  });

  it("does not show a part of the value that the 1 MiB cap cut off", async () => {
    const cap = 1024 * 1024;
    const cuts: Array<[string, number]> = [
      ["token", 1],
      ["token", 5],
      ["token", value.length - 1],
      // Bytes: "ün" and half of "ï", which decodes as U+FFFD.
      ["unicode", 4],
      ["unicode", Buffer.byteLength(unicodeValue) - 1],
    ];
    for (const [name, shownBytes] of cuts) {
      const response = await broker(client, sessionId, {
        method: "POST",
        url: `${base}/pad/${cap - shownBytes}`,
        body: `{{secret:${name}}}`,
      });
      expect(response.body.truncated).toBe(true);
      const tail = response.body.body.slice(cap - shownBytes - 10);
      expect([name, shownBytes, tail]).toEqual([name, shownBytes, `${"x".repeat(10)}[REDACTED]`]);
    }
    // Not cut off: a body that merely ends like the value's first characters is left alone.
    const plain = await broker(client, sessionId, {
      method: "POST",
      url: `${base}/pad/10`,
      body: value.slice(0, 4),
    });
    expect(plain.body).toMatchObject({ truncated: false, body: `${"x".repeat(10)}${value.slice(0, 4)}` });
  });

  it("returns redirects without following them, and 502 when the upstream fails", async () => {
    const before = received.length;
    const redirect = await broker(client, sessionId, {
      url: `${base}/redirect`,
      headers: { A: "{{secret:token}}" },
    });
    expect(redirect.body).toMatchObject({
      status_code: 302,
      headers: { location: "http://api.example.com/stolen" },
    });
    const hanging = await broker(client, sessionId, { url: `${base}/hang`, timeout: 1 });
    expect([hanging.status, errorCode(hanging.body)]).toEqual([502, "sandbox_operation_failed"]);
    // The timeout bounds the whole request, not only the silences between bytes.
    const dripping = await broker(client, sessionId, { url: `${base}/drip`, timeout: 1 });
    expect([dripping.status, errorCode(dripping.body)]).toEqual([502, "sandbox_operation_failed"]);
    const closed = await broker(client, sessionId, { url: "http://127.0.0.1:1/" });
    expect([closed.status, errorCode(closed.body)]).toEqual([502, "sandbox_operation_failed"]);
    expect(received.length).toBe(before);
  });

  it("never logs the value", () => {
    expect(logs.count()).toBeGreaterThan(0);
    for (const secret of [value, unicodeValue]) {
      expect(logs.text()).not.toContain(secret);
      expect(logs.text()).not.toContain(encodeURIComponent(secret));
    }
  });
});

describe("the broker without SVC_ALLOW_PRIVATE_EGRESS", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
  });
  afterAll(() => test.close());

  it("refuses loopback, private, link-local and metadata addresses with egress_denied", async () => {
    const port = new URL(base).port;
    const before = received.length;
    for (const url of [
      `${base}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://127.1:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://0:${port}/`,
      `http://[::]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
      `http://[64:ff9b::7f00:1]:${port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
    ]) {
      const response = await broker(client, sessionId, { url, timeout: 2 });
      expect([url, response.status, errorCode(response.body)]).toEqual([url, 403, "egress_denied"]);
    }
    expect(received.length).toBe(before);
  });
});
