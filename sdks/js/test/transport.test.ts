/**
 * Error parsing, opt-in retry and timeouts against a small real HTTP server that answers what each
 * test scripts (503 then 200, a Retry-After date, a slow exec), counting the requests it gets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CairnApiError,
  CairnClient,
  CairnConnectionError,
  QuotaExceededError,
  ServiceUnavailableError,
} from "../src/index.ts";

type Answer = (request: IncomingMessage, response: ServerResponse, attempt: number) => void;

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server whose n-th request (from 0) gets `answers[n]` (the last one repeats); returns its URL and a counter. */
async function scripted(...answers: Answer[]) {
  const seen: string[] = [];
  server = createServer((request, response) => {
    const attempt = seen.length;
    seen.push(`${request.method} ${request.url}`);
    answers[Math.min(attempt, answers.length - 1)](request, response, attempt);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${address.port}`, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_, response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(body));
  };
const unavailable = json(
  503,
  { error: { code: "service_unavailable", message: "Busy", retryable: true } },
  { "retry-after": "1" },
);
const usage = json(200, { hours_used: 1 });
const fastRetry = { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 5_000 };

describe("error parsing", () => {
  it("reads the envelope: code, message, retryable, remediation, details, Retry-After, request id", async () => {
    const { baseUrl } = await scripted(
      json(
        429,
        {
          error: {
            code: "concurrent_sandbox_limit_reached",
            message: "Limit",
            retryable: false,
            remediation: "Destroy one",
            details: { limit: 2, active: 2 },
          },
        },
        { "retry-after": "7", "x-request-id": "abc" },
      ),
    );
    const error = await new CairnClient({ baseUrl }).createSandbox().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({
      statusCode: 429,
      code: "concurrent_sandbox_limit_reached",
      message: "Limit",
      retryable: false,
      remediation: "Destroy one",
      details: { limit: 2, active: 2 },
      retryAfterSeconds: 7,
      requestId: "abc",
      apiErrorType: "quota_exceeded",
    });
  });

  it("falls back to 'error', 'HTTP <status>' and retryable = 5xx for a body that is not the envelope", async () => {
    const { baseUrl } = await scripted((_, response) => {
      response.writeHead(502, { "content-type": "text/html" });
      response.end("<html>bad gateway</html>");
    });
    const error = await new CairnClient({ baseUrl }).usage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: "error", message: "HTTP 502", retryable: true, remediation: null });

    const { baseUrl: other } = await scripted(json(404, { detail: "nope" }));
    const notFound = await new CairnClient({ baseUrl: other }).usage().catch((caught: unknown) => caught);
    expect(notFound).toMatchObject({
      code: "error",
      message: "HTTP 404",
      retryable: false,
      apiErrorType: null,
    });
  });

  it("lets an explicit retryable: false on a 5xx win", async () => {
    const { baseUrl } = await scripted(
      json(500, { error: { code: "storage_error", message: "Disk", retryable: false } }),
    );
    const error = await new CairnClient({ baseUrl }).usage().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ statusCode: 500, retryable: false, apiErrorType: "service_unavailable" });
  });

  it("reports an unreachable server as a connection error", async () => {
    const { baseUrl } = await scripted(usage);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const error = await new CairnClient({ baseUrl }).usage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CairnConnectionError);
    expect(error).not.toBeInstanceOf(CairnApiError);
  });
});

describe("retry", () => {
  it("is off by default: one attempt", async () => {
    const { baseUrl, seen } = await scripted(unavailable, usage);
    await expect(new CairnClient({ baseUrl }).usage()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it("repeats an idempotent call after waiting what Retry-After says (seconds)", async () => {
    const { baseUrl, seen } = await scripted(unavailable, usage);
    const started = performance.now();
    expect(await new CairnClient({ baseUrl, retry: fastRetry }).usage()).toEqual({ hours_used: 1 });
    expect(seen).toEqual(["GET /v1/usage", "GET /v1/usage"]);
    // Waited for Retry-After's second rather than the 10 ms backoff (an ordering fact, not a timing target).
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("honours Retry-After given as an HTTP date", async () => {
    const soon = new Date(Date.now() + 1_000).toUTCString();
    const { baseUrl, seen } = await scripted(
      json(429, { error: { code: "rate_limited", message: "Slow down" } }, { "retry-after": soon }),
      usage,
    );
    await new CairnClient({ baseUrl, retry: fastRetry }).usage();
    expect(seen).toHaveLength(2);
  });

  it("never repeats a POST", async () => {
    const { baseUrl, seen } = await scripted(unavailable, json(201, {}));
    await expect(
      new CairnClient({ baseUrl, apiKey: "cairn_x", retry: fastRetry }).remember("x"),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it("stops after maxRetries and throws the last error", async () => {
    const { baseUrl, seen } = await scripted(
      json(503, { error: { code: "service_unavailable", message: "Busy" } }),
    );
    await expect(new CairnClient({ baseUrl, retry: fastRetry }).usage()).rejects.toMatchObject({
      statusCode: 503,
    });
    expect(seen).toHaveLength(3);
  });

  it("does not wait out a Retry-After longer than maxDelayMs", async () => {
    const { baseUrl, seen } = await scripted(
      json(
        429,
        { error: { code: "monthly_usage_limit_reached", message: "Month" } },
        { "retry-after": "86400" },
      ),
    );
    await expect(new CairnClient({ baseUrl, retry: fastRetry }).usage()).rejects.toMatchObject({
      retryAfterSeconds: 86400,
    });
    expect(seen).toHaveLength(1);
  });

  it("does not retry a status outside 429/500/502/503/504", async () => {
    const { baseUrl, seen } = await scripted(
      json(501, { error: { code: "internal_error", message: "No" } }),
      usage,
    );
    await expect(new CairnClient({ baseUrl, retry: fastRetry }).usage()).rejects.toMatchObject({
      statusCode: 501,
    });
    expect(seen).toHaveLength(1);
  });
});

describe("timeouts", () => {
  it("gives exec its command's timeout plus 15 s, and other calls the client's timeout", async () => {
    const slow: Answer = (_, response) =>
      setTimeout(() => json(200, { exit_code: 0, stdout: "done" })(_, response, 0), 600);
    const { baseUrl } = await scripted(slow);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x", timeoutMs: 200 });
    expect(await client.exec("session", "sleep 0.5", { timeout: 1 })).toMatchObject({ stdout: "done" });
    const timedOut = await client.getSandbox("session").catch((caught: unknown) => caught);
    expect(timedOut).toBeInstanceOf(CairnConnectionError);
    expect((timedOut as Error).message).toContain("no answer within 0.2 s");
  });

  it("gives a tool called by name its input's sandbox-side timeout plus 15 s", async () => {
    const slow: Answer = (_, response) =>
      setTimeout(() => json(200, { exit_code: 0, stdout: "done" })(_, response, 0), 600);
    const { baseUrl } = await scripted(slow);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x", timeoutMs: 200 });
    const input = { session_id: "session", command: "sleep 0.5", timeout: 1 };
    expect(await client.callTool("exec", input)).toMatchObject({ stdout: "done" });
    const timedOut = await client.callTool("recall", { query: "x" }).catch((caught: unknown) => caught);
    expect(timedOut).toBeInstanceOf(CairnConnectionError);
    const overridden = await client
      .callTool("exec", input, { timeoutMs: 100 })
      .catch((caught: unknown) => caught);
    expect((overridden as Error).message).toContain("no answer within 0.1 s");
  });
});

describe("CAIRN_BASE_URL and CAIRN_API_KEY", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("are the defaults for the base URL and the key; explicit options win, and an empty key sends none", async () => {
    const keys: (string | undefined)[] = [];
    const { baseUrl, seen } = await scripted((request, response) => {
      keys.push(request.headers.authorization);
      usage(request, response, 0);
    });
    vi.stubEnv("CAIRN_BASE_URL", `${baseUrl}/`);
    vi.stubEnv("CAIRN_API_KEY", "cairn_from_environment");
    const fromEnvironment = new CairnClient();
    expect(fromEnvironment.baseUrl).toBe(baseUrl);
    await fromEnvironment.usage();
    await new CairnClient({ apiKey: "cairn_explicit" }).usage();
    await new CairnClient({ apiKey: "" }).usage();
    expect(seen).toEqual(["GET /v1/usage", "GET /v1/usage", "GET /v1/usage"]);
    expect(keys).toEqual(["Bearer cairn_from_environment", "Bearer cairn_explicit", undefined]);
    expect(() => new CairnClient({ baseUrl: "http://example.com" })).toThrow(/use https/);
  });

  it("are ignored when empty", () => {
    vi.stubEnv("CAIRN_BASE_URL", "");
    expect(new CairnClient().baseUrl).toBe("http://127.0.0.1:8090");
  });
});

describe("withSandbox's clean-up", () => {
  const created = json(201, { id: "sbx_1", status: "active" });
  const deleted: Answer = (_, response) => {
    response.writeHead(204);
    response.end();
  };
  const failing = json(500, {
    error: { code: "internal_error", message: "Internal error", retryable: true },
  });
  const gone = json(404, { error: { code: "not_found", message: "Sandbox not found", retryable: false } });

  it("destroys the sandbox and returns the work's result", async () => {
    const { baseUrl, seen } = await scripted(created, deleted);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x" });
    expect(await client.withSandbox(async (sandbox) => sandbox.id)).toBe("sbx_1");
    expect(seen).toEqual(["POST /v1/sandboxes", "DELETE /v1/sandboxes/sbx_1"]);
  });

  it("throws when the sandbox could not be destroyed, so it is not left running unnoticed", async () => {
    const { baseUrl } = await scripted(created, failing);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x" });
    const failure = await client.withSandbox(async () => "done").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CairnApiError);
    expect(failure).toMatchObject({ statusCode: 500, code: "internal_error" });
  });

  it("takes a sandbox already gone (404) as destroyed", async () => {
    const { baseUrl } = await scripted(created, gone);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x" });
    expect(await client.withSandbox(async () => "done")).toBe("done");
  });

  it("surfaces the work's error when the work and the clean-up both fail", async () => {
    const { baseUrl, seen } = await scripted(created, failing);
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x" });
    const work = client.withSandbox(async () => {
      throw new Error("the work failed");
    });
    await expect(work).rejects.toThrow("the work failed");
    expect(seen).toEqual(["POST /v1/sandboxes", "DELETE /v1/sandboxes/sbx_1"]);
  });
});

describe("exportMemories", () => {
  const page = (ids: string[], relations: unknown[], cursor: string | null) =>
    json(200, {
      version: 1,
      memories: ids.map((id) => ({ id, content: `Memory ${id}` })),
      relations,
      next_cursor: cursor,
    });
  const edge = { source_memory_id: "b", target_memory_id: "c", relation_type: "related", confidence: 0.5 };

  it("follows next_cursor and returns every page as one export", async () => {
    const { baseUrl, seen } = await scripted(page(["a", "b"], [], "cursor-1"), page(["c"], [edge], null));
    const client = new CairnClient({ baseUrl, apiKey: "cairn_x" });
    const exported = await client.exportMemories({ scope: "work" });
    expect(exported.memories.map((memory) => memory.id)).toEqual(["a", "b", "c"]);
    expect(exported.relations).toEqual([edge]);
    expect(exported.next_cursor).toBeNull();
    expect(seen).toEqual([
      "GET /v1/memory/export?scope=work",
      "GET /v1/memory/export?scope=work&cursor=cursor-1",
    ]);
  });
});

describe("event streams", () => {
  const events =
    (...blocks: string[]): Answer =>
    (_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(blocks.join(""));
    };
  const output = (text: string, next: number) =>
    `id: ${next}\nevent: output\ndata: ${JSON.stringify({ type: "output", stdout_chunk: text, stderr_chunk: "", next_offset: next, truncated: false })}\n\n`;

  it("resumes a process's output from the last event's offset when the server closes early", async () => {
    const { baseUrl, seen } = await scripted(
      events(output("ab", 2), ": keep-alive\n\n", output("cd", 4)),
      events(
        output("ef", 6),
        `event: exit\r\ndata: ${JSON.stringify({ type: "exit", status: "exited", exit_code: 0, next_offset: 6 })}\r\n\r\n`,
      ),
    );
    const client = new CairnClient({ baseUrl, apiKey: "key" });
    const received = [];
    for await (const event of client.streamProcess("s1", "p1")) received.push(event);
    expect(received.map((event) => (event.type === "output" ? event.stdout_chunk : event.type))).toEqual([
      "ab",
      "cd",
      "ef",
      "exit",
    ]);
    expect(seen).toEqual([
      "GET /v1/sandboxes/s1/processes/p1/stream?since_offset=0",
      "GET /v1/sandboxes/s1/processes/p1/stream?since_offset=4",
    ]);
  });

  it("resumes a sandbox's watch after its last entry, and ends with the sandbox", async () => {
    const entry = (seq: number) =>
      `id: ${seq}\nevent: activity\ndata: ${JSON.stringify({ seq, kind: "command" })}\n\n`;
    const { baseUrl, seen } = await scripted(
      events(entry(7), entry(8)),
      events(entry(9), `event: end\ndata: ${JSON.stringify({ type: "end", reason: "sandbox_ended" })}\n\n`),
    );
    const client = new CairnClient({ baseUrl, apiKey: "key" });
    const seqs = [];
    for await (const activity of client.watchSandbox("s1")) seqs.push(activity.seq);
    expect(seqs).toEqual([7, 8, 9]);
    expect(seen).toEqual(["GET /v1/sandboxes/s1/watch", "GET /v1/sandboxes/s1/watch?since=8"]);
  });

  it("closes the connection when the caller leaves the loop early", async () => {
    let closed: () => void = () => {};
    const serverSawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const { baseUrl } = await scripted((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(output("ab", 2));
      response.on("close", () => closed());
    });
    const client = new CairnClient({ baseUrl, apiKey: "key" });
    for await (const event of client.streamProcess("s1", "p1")) {
      expect(event.type).toBe("output");
      break;
    }
    await serverSawClose;
  });

  it("gives up with a connection error after three failed connections in a row", async () => {
    const { baseUrl, seen } = await scripted((request) => request.socket.destroy());
    const client = new CairnClient({ baseUrl, apiKey: "key" });
    await expect(client.streamProcess("s1", "p1").next()).rejects.toBeInstanceOf(CairnConnectionError);
    expect(seen).toHaveLength(4);
  });
});
