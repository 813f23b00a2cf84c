/**
 * One rate-limit mechanism for every route (docs/rate-limits.md), on an injected clock: the limit
 * passes, the next request is 429 with Retry-After 1, a token returns after 60/limit seconds,
 * and another account's bucket is untouched. Runs on the in-process and the PostgreSQL store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createManualClock, defineTool, invoke, ServiceError } from "../../core/index.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

// A probe operation in the memory_ops bucket: the pipeline under test is the real one.
const probe = defineTool({
  name: "probe",
  group: "memory",
  title: "Probe",
  description: "test probe",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  auth: "api_key",
  bucket: "memory_ops",
  handler: async () => ({ ok: true }),
});

const stores = [
  { name: "in-process store", target: "sqlite" as const, environment: {} as Record<string, string> },
  {
    name: "PostgreSQL store",
    target: "postgresql" as const,
    environment: { SVC_RATE_LIMIT_STORE: "postgres" },
  },
];

describe.each(stores)("token buckets on the $name", ({ target, environment }) => {
  const clock = createManualClock();
  let test: TestPlatform;
  let first: string;
  let second: string;

  beforeAll(async () => {
    test = await createTestPlatform(target, { clock, environment });
    first = (await createAccountWithKey(test)).key;
    second = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  const call = (key: string) =>
    invoke(test.platform, probe, {
      authorization: `Bearer ${key}`,
      clientIp: "198.51.100.1",
      requestId: "r",
      signal: new AbortController().signal,
      input: {},
    });

  it("allows the limit, refuses the next with Retry-After 1, refills at limit/60 per second", async () => {
    const limit = 120;
    for (let index = 0; index < limit; index++) {
      const { rateLimit } = await call(first);
      expect(rateLimit).toEqual({ limit, remaining: limit - index - 1, retryAfterSeconds: 0 });
    }
    const refused = await call(first).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    const error = refused as ServiceError;
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limited");
    expect(error.rateLimit).toEqual({ limit: 120, remaining: 0, retryAfterSeconds: 1 });
    expect(error.retryAfterSeconds).toBe(1);
    expect(error.details).toEqual({ bucket: "memory_ops", limit: 120, retry_after_seconds: 1 });

    // The other account has its own full bucket.
    expect((await call(second)).rateLimit?.remaining).toBe(119);

    clock.advance(499); // one token needs 60/120 = 0.5 s
    await expect(call(first)).rejects.toMatchObject({ code: "rate_limited" });
    clock.advance(1);
    expect((await call(first)).rateLimit?.remaining).toBe(0);
    await expect(call(first)).rejects.toMatchObject({ code: "rate_limited" });

    clock.advance(60_000); // a full minute refills to capacity, not beyond
    expect((await call(first)).rateLimit?.remaining).toBe(119);
  });
});

describe("per-IP buckets for signup and login", () => {
  let test: TestPlatform;
  const clock = createManualClock();
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { clock });
  });
  afterAll(() => test.close());

  it("limits signups per client IP over HTTP, with the rate-limit headers", async () => {
    const signup = (ip: string) =>
      test.request("/v1/auth/signup", {
        method: "POST",
        ip,
        json: { email: `${crypto.randomUUID()}@example.com`, password: "long enough" },
      });
    for (let index = 0; index < 10; index++) {
      const response = await signup("192.0.2.10");
      expect(response.status).toBe(201);
      expect(response.headers.get("X-RateLimit-Remaining")).toBe(String(9 - index));
    }
    const refused = await signup("192.0.2.10");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("6");
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    const body = (await refused.json()) as { error: { code: string; retryable: boolean } };
    expect(body.error).toMatchObject({ code: "rate_limited", retryable: true });
    expect((await signup("192.0.2.11")).status).toBe(201);
    clock.advance(6000);
    expect((await signup("192.0.2.10")).status).toBe(201);
  });

  it("blocks an email+IP pair after 10 failed logins, while other IPs and the right password elsewhere still work", async () => {
    const email = `${crypto.randomUUID()}@example.com`;
    await test.request("/v1/auth/signup", {
      method: "POST",
      ip: "192.0.2.50",
      json: { email, password: "the right one" },
    });
    const login = (password: string, ip: string) =>
      test.request("/v1/auth/login", { method: "POST", ip, json: { email, password } });
    for (let attempt = 0; attempt < 10; attempt++) {
      clock.advance(6000); // stay under the per-IP bucket so only the failure guard is tested
      expect((await login("wrong password", "192.0.2.60")).status).toBe(401);
    }
    clock.advance(6000);
    const blocked = await login("the right one", "192.0.2.60");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(60);
    expect((await login("the right one", "192.0.2.61")).status).toBe(200);
  });
});

describe("replicas share PostgreSQL buckets", () => {
  it("two platforms on one database draw from one bucket", async () => {
    const clock = createManualClock();
    const environment = { SVC_RATE_LIMIT_STORE: "postgres", SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "4" };
    const first = await createTestPlatform("postgresql", { clock, environment });
    const second = await createTestPlatform("postgresql", {
      clock,
      environment,
      databaseUrl: first.databaseUrl,
    });
    try {
      const { key } = await createAccountWithKey(first);
      const call = (test: TestPlatform) =>
        invoke(test.platform, probe, {
          authorization: `Bearer ${key}`,
          clientIp: "x",
          requestId: "r",
          signal: new AbortController().signal,
          input: {},
        });
      const outcomes = await Promise.allSettled([
        call(first),
        call(second),
        call(first),
        call(second),
        call(first),
        call(second),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(4);
      expect(outcomes.filter((outcome) => outcome.status === "rejected")).toHaveLength(2);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
