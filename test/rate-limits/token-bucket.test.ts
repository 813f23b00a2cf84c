/**
 * One rate-limit mechanism for every route (docs/rate-limits.md), on an injected clock: the limit
 * passes, the next request is 429 with Retry-After 1, a token returns after 60/limit seconds,
 * and another account's bucket is untouched. Runs on every store: in-process, PostgreSQL and
 * Redis (a private redis-server); the shared ones also across two replicas, and Redis going away
 * is a 503, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, invoke, ServiceError } from "../../core/index.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  type StorageTarget,
  type TestPlatform,
} from "../support/platforms.ts";
import { startTestRedis, type TestRedis } from "../support/redis.ts";

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
  uses: [],
  handler: async () => ({ ok: true }),
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis?.stop());

interface Store {
  name: string;
  /** The database a single platform uses (the shared stores' replicas are on PostgreSQL). */
  target: StorageTarget;
  environment: () => Record<string, string>;
}

const inProcess: Store = { name: "in-process store", target: "sqlite", environment: () => ({}) };
const postgresStore: Store = {
  name: "PostgreSQL store",
  target: "postgresql",
  environment: () => ({ SVC_RATE_LIMIT_STORE: "postgres" }),
};
const redisStore: Store = {
  name: "Redis store",
  target: "sqlite",
  environment: () => ({ SVC_RATE_LIMIT_STORE: "redis", SVC_REDIS_URL: redis.url }),
};
const stores = [inProcess, postgresStore, redisStore];

const probeCall = (test: TestPlatform, key: string, clientIp = "198.51.100.1") =>
  invoke(test.platform, probe, {
    credential: key,
    clientIp,
    requestId: "r",
    signal: new AbortController().signal,
    input: {},
  });

describe.each(stores)("token buckets on the $name", ({ target, environment }) => {
  const clock = createFakeClock();
  let test: TestPlatform;
  let first: string;
  let firstAccount: string;
  let second: string;

  beforeAll(async () => {
    test = await createTestPlatform(target, { clock, environment: environment() });
    ({ key: first, accountId: firstAccount } = await createAccountWithKey(test));
    second = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test?.close());

  const call = (key: string) => probeCall(test, key);

  it("allows the limit, refuses the next with Retry-After 1, refills at limit/60 per second", async () => {
    const limit = 120;
    for (let index = 0; index < limit; index++) {
      const { rateLimit } = await call(first);
      expect(rateLimit).toEqual({ limit, remaining: limit - index - 1, retryAfterSeconds: 0 });
    }
    const refused = await call(first).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    const error = refused as ServiceError;
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

    // The read-only look GET /v1/usage takes sees the same bucket and takes nothing.
    const peek = () => test.platform.rateLimits.peek(`memory_ops:${firstAccount}`, limit, clock.now());
    expect(await peek()).toBe(119);
    clock.advance(250); // half a token
    expect(await peek()).toBe(119);
    clock.advance(250);
    expect(await peek()).toBe(120);
    expect(await test.platform.rateLimits.peek("memory_ops:nobody", limit, clock.now())).toBe(limit);
  });

  it("takes no token for a call its schema refuses, and one for a call that fails after", async () => {
    const { key, accountId } = await createAccountWithKey(test);
    const left = () => test.platform.rateLimits.peek(`memory_ops:${accountId}`, 120, clock.now());
    const remember = (json: unknown) =>
      test.request("/v1/memory", { method: "POST", headers: { authorization: `Bearer ${key}` }, json });
    for (let attempt = 0; attempt < 5; attempt++) expect((await remember({ content: "" })).status).toBe(422);
    expect(await left()).toBe(120);
    const forget = await test.request(`/v1/memory/${crypto.randomUUID()}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(forget.status).toBe(404);
    expect(await left()).toBe(119);
  });
});

describe.each(stores)("per-IP buckets for signup and login on the $name", ({ target, environment }) => {
  let test: TestPlatform;
  const clock = createFakeClock();
  beforeAll(async () => {
    test = await createTestPlatform(target, { clock, environment: environment() });
  });
  afterAll(() => test?.close());

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
    expect(blocked.headers.get("X-RateLimit-Limit")).toBe("10");
    expect(blocked.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect((await login("the right one", "192.0.2.61")).status).toBe(200);
  });
});

describe.each([postgresStore, redisStore])("replicas share the $name's buckets", ({ environment }) => {
  it("two platforms on one database draw from one bucket", async () => {
    const clock = createFakeClock();
    const shared = { ...environment(), SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "4" };
    const first = await createTestPlatform("postgresql", { clock, environment: shared });
    const second = await createTestPlatform("postgresql", {
      clock,
      environment: shared,
      databaseUrl: first.databaseUrl,
    });
    try {
      const { key } = await createAccountWithKey(first);
      const outcomes = await Promise.allSettled(
        [first, second, first, second, first, second].map((replica) => probeCall(replica, key, "x")),
      );
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(4);
      expect(outcomes.filter((outcome) => outcome.status === "rejected")).toHaveLength(2);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe("Redis going away", () => {
  it("answers 503 service_unavailable with Retry-After while Redis is down, and recovers without a restart", async () => {
    const own = await startTestRedis();
    const test = await createTestPlatform("sqlite", {
      environment: { SVC_RATE_LIMIT_STORE: "redis", SVC_REDIS_URL: own.url },
    });
    try {
      const { key, email } = await createAccountWithKey(test);
      const remember = () =>
        test.request("/v1/memory", { method: "POST", credential: key, json: { content: "Redis is down" } });
      expect((await remember()).status).toBe(201);

      await own.stop();
      const refused = await remember();
      expect(refused.status).toBe(503);
      // As for an unreachable database (test/faults/database-outage.test.ts).
      expect(refused.headers.get("Retry-After")).toBe("5");
      expect(((await refused.json()) as { error: { code: string } }).error).toMatchObject({
        code: "service_unavailable",
        retryable: true,
      });
      // The failed-login guard and the per-IP login bucket live there too.
      const login = await test.request("/v1/auth/login", {
        method: "POST",
        json: { email, password: "correct horse battery" },
      });
      expect(login.status).toBe(503);
      await expect(probeCall(test, key)).rejects.toMatchObject({ code: "service_unavailable" });

      await own.restart();
      let status = 0;
      for (let attempt = 0; attempt < 100 && status !== 201; attempt++) {
        status = (await remember()).status;
        if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(201);
    } finally {
      await test.close();
      await own.stop();
    }
  });

  it("refuses to start when SVC_REDIS_URL is missing or unreachable", async () => {
    await expect(
      createTestPlatform("sqlite", { environment: { SVC_RATE_LIMIT_STORE: "redis" } }),
    ).rejects.toThrow(/SVC_REDIS_URL/);
    const gone = await startTestRedis();
    await gone.stop();
    await expect(
      createTestPlatform("sqlite", {
        environment: { SVC_RATE_LIMIT_STORE: "redis", SVC_REDIS_URL: gone.url },
      }),
    ).rejects.toThrow(/SVC_REDIS_URL: cannot reach Redis/);
  });
});
