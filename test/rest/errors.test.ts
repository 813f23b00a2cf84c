/**
 * The error envelope of docs/errors.md on every kind of failure, and the headers every response
 * carries (docs/api.md#request-ids-and-security-headers).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, storageGaugesMaxAgeMilliseconds } from "../../transports/rest/create-app.ts";
import { createMetrics } from "../../transports/rest/metrics.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

interface Envelope {
  error: { code: string; message: string; retryable: boolean; remediation: string | null; details?: unknown };
}

describe("REST errors and headers", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { environment: { SVC_MAX_BODY_BYTES: "2048" } });
  });
  afterAll(() => test.close());

  async function envelope(response: Response): Promise<Envelope> {
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as Envelope;
    expect(Object.keys(body.error).sort()).toEqual(
      expect.arrayContaining(["code", "message", "retryable", "remediation"]),
    );
    return body;
  }

  it("unknown routes are 404 not_found", async () => {
    const response = await test.request("/v1/nothing-here");
    expect(response.status).toBe(404);
    expect((await envelope(response)).error.code).toBe("not_found");
  });

  it("wrong methods on known routes are 405 method_not_allowed", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/v1/account", "GET"],
      ["DELETE", "/v1/auth/signup", "POST"],
      ["PATCH", "/v1/api-keys/abc", "DELETE"],
      // A fixed path is not a memory id: a wrong method on it is 405, not a forget of "search".
      ["PUT", "/v1/memory/search", "GET"],
      ["DELETE", "/v1/memory/search", "GET"],
      ["DELETE", "/v1/memory/metrics", "GET"],
      ["DELETE", "/v1/memory/profile", "GET"],
      ["GET", "/v1/memory/import", "POST"],
      ["DELETE", "/v1/tools", "GET"],
      ["GET", "/v1/tools/recall", "POST"],
      ["PUT", "/health", "GET"],
      ["POST", "/health/ready", "GET"],
      ["POST", "/metrics", "GET"],
      ["PUT", "/v1/openapi.json", "GET"],
      ["DELETE", "/docs", "GET"],
    ]) {
      const response = await test.request(path, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expect(response.headers.get("x-request-id")).toBeTruthy();
      expect((await envelope(response)).error.code).toBe("method_not_allowed");
    }
  });

  it("malformed JSON is 400 invalid_json", async () => {
    const response = await test.request("/v1/auth/signup", { method: "POST", body: '{"email": ' });
    expect(response.status).toBe(400);
    const body = await envelope(response);
    expect(body.error).toMatchObject({ code: "invalid_json", retryable: false });
  });

  it("bodies over the limit are 413 payload_too_large", async () => {
    const response = await test.request("/v1/auth/signup", {
      method: "POST",
      json: { email: "a@example.com", password: "x".repeat(5000) },
    });
    expect(response.status).toBe(413);
    expect((await envelope(response)).error.code).toBe("payload_too_large");
  });

  it("validation errors list {type, loc, msg} and never echo submitted values", async () => {
    const secretValue = "not-an-email-but-a-secret-value";
    const response = await test.request("/v1/auth/signup", {
      method: "POST",
      json: { email: secretValue, password: "short", extra: "ignored" },
    });
    expect(response.status).toBe(422);
    const text = await response.clone().text();
    expect(text).not.toContain(secretValue);
    const body = await envelope(response);
    expect(body.error.code).toBe("validation_error");
    expect(body.error.message).toBe("Invalid request");
    const locations = (body.error.details as Array<{ type: string; loc: string[]; msg: string }>).map(
      (item) => item.loc.join("."),
    );
    expect(locations.sort()).toEqual(["body.email", "body.password"]);
  });

  // `cairn mcp serve --data-dir` acts as local@cairn.invalid: an account signed up under that name
  // beforehand would be handed everything the stdio client writes.
  it("refuses to sign up an address under .invalid, where the stdio account lives", async () => {
    const response = await test.request("/v1/auth/signup", {
      method: "POST",
      json: { email: "local@cairn.invalid", password: "correct horse battery" },
    });
    expect(response.status).toBe(422);
    const body = await envelope(response);
    expect((body.error.details as Array<{ loc: string[] }>).map((item) => item.loc.join("."))).toEqual([
      "body.email",
    ]);
  });

  it("a non-object JSON body is a validation error, not a crash", async () => {
    const response = await test.request("/v1/auth/signup", { method: "POST", json: [1, 2, 3] });
    expect(response.status).toBe(422);
  });

  it("unexpected failures are 500 internal_error without the cause", async () => {
    const original = test.platform.storage.accounts.findByEmail;
    test.platform.storage.accounts.findByEmail = async () => {
      throw new Error("database exploded at /var/lib/secret-path");
    };
    try {
      const response = await test.request("/v1/auth/login", {
        method: "POST",
        json: { email: "a@b.co", password: "whatever1" },
      });
      expect(response.status).toBe(500);
      const text = await response.clone().text();
      expect(text).not.toContain("exploded");
      expect((await envelope(response)).error).toMatchObject({ code: "internal_error", retryable: true });
    } finally {
      test.platform.storage.accounts.findByEmail = original;
    }
  });

  it("every response carries X-Request-ID (echoed or fresh) and the framing headers", async () => {
    const echoed = await test.request("/health", { headers: { "X-Request-ID": "client-chosen-id.42" } });
    expect(echoed.headers.get("X-Request-ID")).toBe("client-chosen-id.42");
    for (const response of [
      await test.request("/health"),
      await test.request("/v1/nope"),
      await test.request("/v1/account"),
    ]) {
      expect(response.headers.get("X-Request-ID")).toMatch(/^[0-9a-f]{32}$/);
      expect(response.headers.get("X-Frame-Options")).toBe("DENY");
      expect(response.headers.get("Content-Security-Policy")).toBe("frame-ancestors 'none'");
    }
    const hostile = await test.request("/health", {
      headers: { "X-Request-ID": "bad id with spaces\u0007" },
    });
    expect(hostile.headers.get("X-Request-ID")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("health, readiness, metrics and docs answer without credentials", async () => {
    expect(await (await test.request("/health")).json()).toEqual({ status: "ok" });
    expect(await (await test.request("/health/ready")).json()).toEqual({
      status: "ready",
      checks: { database: "ok" },
    });
    const metrics = await (await test.request("/metrics")).text();
    expect(metrics).toContain('cairn_http_requests_total{method="GET",route="/health",status="200"}');
    expect(metrics).toMatch(/^cairn_sandboxes_active 0$/m);
    expect(metrics).toMatch(/^cairn_memories_stored \d+$/m);
    expect(metrics).toMatch(/^cairn_memory_link_jobs_queued \d+$/m);
    expect(metrics).toMatch(
      /^cairn_http_request_duration_seconds_count\{method="GET",route="\/health"\} \d+$/m,
    );
    // prom-client's process metrics ride along.
    expect(metrics).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect((await test.request("/docs")).status).toBe(200);
  });

  it("metrics leave out the storage gauges, and still answer, when storage cannot be read", async () => {
    // An app of its own, on a clock moved by hand: one read of the storage gauges answers the
    // scrapes of the next 10 s (metrics-storage-reads.test.ts), so the failure must come after it.
    let now = 0;
    const app = createApp(test.platform, { metrics: createMetrics({ now: () => now }) });
    const scrape = async () => {
      const response = await app.request("/metrics");
      expect(response.status).toBe(200);
      return response.text();
    };
    expect(await scrape()).toMatch(/^cairn_sandboxes_active 0$/m);
    const gauges = test.platform.storage.gauges;
    test.platform.storage.gauges = async () => {
      throw new Error("database unreachable");
    };
    try {
      now += storageGaugesMaxAgeMilliseconds;
      const metrics = await scrape();
      expect(metrics).toContain("cairn_http_requests_total");
      // Not the values read before: left out, as long as the failed read answers.
      expect(metrics).not.toContain("cairn_sandboxes_active");
      now += storageGaugesMaxAgeMilliseconds - 1;
      expect(await scrape()).not.toContain("cairn_sandboxes_active");
    } finally {
      test.platform.storage.gauges = gauges;
    }
    now += storageGaugesMaxAgeMilliseconds;
    expect(await scrape()).toMatch(/^cairn_sandboxes_active 0$/m);
  });

  it("CORS is closed by default", async () => {
    const response = await test.request("/health", { headers: { Origin: "https://evil.example" } });
    expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("configurable surfaces", () => {
  it("readiness is 503 when the database is unreachable; metrics and docs can be turned off", async () => {
    const test = await createTestPlatform("sqlite", {
      environment: { SVC_METRICS_ENABLED: "false", SVC_API_DOCS: "false" },
    });
    try {
      expect((await test.request("/metrics")).status).toBe(404);
      expect((await test.request("/docs")).status).toBe(404);
      test.platform.storage.ping = async () => false;
      const response = await test.request("/health/ready");
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: "unavailable", checks: { database: "unreachable" } });
    } finally {
      await test.close();
    }
  });

  it("CORS answers only configured origins", async () => {
    const test = await createTestPlatform("sqlite", {
      environment: { SVC_CORS_ALLOWED_ORIGINS: "https://app.example" },
    });
    try {
      const allowed = await test.request("/health", { headers: { Origin: "https://app.example" } });
      expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
      const refused = await test.request("/health", { headers: { Origin: "https://evil.example" } });
      expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    } finally {
      await test.close();
    }
  });
});
