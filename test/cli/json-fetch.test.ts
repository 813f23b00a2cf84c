/**
 * cli/json-fetch.ts, the fetch the CLI gives the SDK, against the global fetch it stands in for:
 * the same SDK client over each, talking to a real local HTTP server, sends the same request and
 * ends in the same result or the same error (API envelope, Retry-After and request id, refused
 * connection, timeout). Streams are left to the global fetch.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CairnClient } from "cairn-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonFetch } from "../../cli/json-fetch.ts";

interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const fetches = { jsonFetch, "global fetch": globalThis.fetch.bind(globalThis) } as const;

let server: Server;
let baseUrl: string;
const seen: SeenRequest[] = [];
/** Requests the server holds without answering (the timeout case); answered at the end. */
const held: ServerResponse[] = [];

function answer(request: IncomingMessage, response: ServerResponse, body: string) {
  seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
  const path = request.url ?? "";
  if (path.startsWith("/v1/account")) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ account: { email: "ada@example.com" }, note: "naïve ✓" }));
  } else if (path.startsWith("/v1/memory") && request.method === "POST") {
    response.writeHead(201, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: "memory-1", echo: JSON.parse(body) }));
  } else if (path.startsWith("/v1/memory/") && request.method === "DELETE") {
    response.writeHead(204);
    response.end();
  } else if (path.startsWith("/v1/sandboxes")) {
    response.writeHead(429, {
      "content-type": "application/json",
      "retry-after": "7",
      "x-request-id": "request-42",
    });
    response.end(
      JSON.stringify({
        error: { code: "rate_limited", message: "Too many sandbox operations", retryable: true },
      }),
    );
  } else if (path.startsWith("/v1/usage")) {
    response.writeHead(502, { "content-type": "text/html" });
    response.end("<html>bad gateway</html>");
  } else if (path.startsWith("/slow")) {
    held.push(response);
  } else if (path.startsWith("/events")) {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end("data: one\n\n");
  } else {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { code: "not_found", message: "No such route" } }));
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => answer(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of held) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const clientWith = (fetchImpl: typeof fetch, options: { baseUrl?: string; timeoutMs?: number } = {}) =>
  new CairnClient({ baseUrl, apiKey: "cairn_test_key", fetchImpl, ...options });

/** What a call ends in, success or failure, as plain data to compare. */
async function outcome(call: () => Promise<unknown>) {
  try {
    return { value: await call() };
  } catch (error) {
    const { name, message, ...fields } = error as Error & Record<string, unknown>;
    return { error: { type: (error as Error).constructor.name, message, ...fields } };
  }
}

/** The request as the server saw it, less what differs by transport only (connection handling). */
function comparable(request: SeenRequest) {
  const {
    host,
    connection,
    "accept-encoding": _encoding,
    "accept-language": _language,
    ...headers
  } = request.headers;
  delete headers["sec-fetch-mode"];
  return { ...request, headers: { ...headers, host: host?.toString().replace(/:\d+$/, "") } };
}

describe("the CLI's JSON fetch", () => {
  it("sends what the global fetch sends and hands the SDK the same answers and errors", async () => {
    const results: Record<string, unknown[]> = {};
    const requests: Record<string, unknown[]> = {};
    for (const [name, fetchImpl] of Object.entries(fetches)) {
      const client = clientWith(fetchImpl);
      seen.length = 0;
      results[name] = [
        await outcome(() => client.account()),
        await outcome(() => client.remember("The deploy script lives in ops/deploy.sh", { scope: "ops" })),
        await outcome(() => client.forgetMemory("memory-1")),
        await outcome(() => client.listSandboxes({ activeOnly: true })),
        await outcome(() => client.usage()),
        await outcome(() => client.getMemory("missing")),
      ];
      requests[name] = seen.map(comparable);
    }
    expect(results.jsonFetch).toEqual(results["global fetch"]);
    expect(requests.jsonFetch).toEqual(requests["global fetch"]);
    // The cases above are what they claim to be.
    const [account, remembered, forgotten, limited, gateway, missing] = results.jsonFetch as Array<
      Record<string, Record<string, unknown>>
    >;
    expect(account.value).toEqual({ account: { email: "ada@example.com" }, note: "naïve ✓" });
    expect(remembered.value.echo).toMatchObject({ content: "The deploy script lives in ops/deploy.sh" });
    expect(forgotten).toEqual({ value: undefined });
    expect(limited.error).toMatchObject({
      code: "rate_limited",
      statusCode: 429,
      retryAfterSeconds: 7,
      requestId: "request-42",
    });
    expect(gateway.error).toMatchObject({ code: "error", statusCode: 502, message: "HTTP 502" });
    expect(missing.error).toMatchObject({ code: "not_found", statusCode: 404 });
    expect((requests.jsonFetch[1] as SeenRequest).headers).toMatchObject({
      authorization: "Bearer cairn_test_key",
      "content-type": "application/json",
      accept: "application/json",
    });
  });

  it("fails as the global fetch does when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const [viaJson, viaFetch] = await Promise.all(
      Object.values(fetches).map((fetchImpl) =>
        outcome(() => clientWith(fetchImpl, { baseUrl: `http://127.0.0.1:${port}` }).account()),
      ),
    );
    expect(viaJson).toMatchObject({ error: { type: "CairnConnectionError" } });
    expect((viaJson.error as { message: string }).message).toMatch(
      /^GET \/v1\/account failed: fetch failed: .*ECONNREFUSED/,
    );
    expect(viaJson.error).toEqual(viaFetch.error);
  });

  it("gives up after the client's timeout with the global fetch's message", async () => {
    const client = new CairnClient({
      baseUrl: `${baseUrl}/slow`,
      apiKey: "key",
      fetchImpl: jsonFetch,
      timeoutMs: 300,
    });
    const result = await outcome(() => client.account());
    expect(result.error).toMatchObject({
      type: "CairnConnectionError",
      message: "GET /v1/account failed: no answer within 0.3 s",
    });
  });

  it("leaves event streams to the global fetch", async () => {
    const response = await jsonFetch(`${baseUrl}/events`, { headers: { accept: "text/event-stream" } });
    expect(response).toBeInstanceOf(Response);
    expect(await response.text()).toBe("data: one\n\n");
  });
});
