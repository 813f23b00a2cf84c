/**
 * Memory routes take an API key only (a dashboard JWT is 401 `wrong_credential_type` on every
 * route), and the `memory_ops` bucket applies to exactly POST memory, ingest, import, DELETE and
 * the export (a page is megabytes of work): those answer with X-RateLimit-* headers and run out;
 * the other GETs carry none and never do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";
import { errorCode, memoryClient } from "./memory-client.ts";

const limit = 12;

describe.each(storageTargets)("memory credentials and rate limits on %s", (target) => {
  // A frozen clock: the bucket never refills during the test.
  const clock = createFakeClock();
  let test: TestPlatform;
  let token: string;
  let key: string;
  let memoryId: string;
  // Rows for the DELETEs to remove, so each answers 204 with its headers.
  let deletable: string[];

  beforeAll(async () => {
    test = await createTestPlatform(target, {
      clock,
      environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: String(limit) },
    });
    ({ token, key } = await createAccountWithKey(test));
    const imported = await test.request("/v1/memory/import", {
      method: "POST",
      json: { memories: Array.from({ length: 20 }, (_, index) => ({ content: `Rate limit row ${index}` })) },
      credential: key,
    });
    const ids = ((await imported.json()).memories as { id: string }[]).map((row) => row.id);
    memoryId = ids[0];
    deletable = ids.slice(1);
  });
  afterAll(() => test.close());

  const routes = () => [
    {
      method: "POST",
      path: "/v1/memory",
      json: { content: `Counted write ${crypto.randomUUID()}` },
      limited: true,
    },
    {
      method: "POST",
      path: "/v1/memory/ingest",
      json: { content: "Ingest is counted as well, once per call." },
      limited: true,
    },
    {
      method: "POST",
      path: "/v1/memory/import",
      json: { memories: [{ content: `Imported ${crypto.randomUUID()}` }] },
      limited: true,
    },
    { method: "DELETE", path: `/v1/memory/${deletable.pop()}`, limited: true },
    { method: "GET", path: "/v1/memory/metrics", limited: false },
    { method: "GET", path: "/v1/memory/search?q=rate", limited: false },
    { method: "GET", path: "/v1/memory/profile", limited: false },
    { method: "GET", path: "/v1/memory/export", limited: true },
    { method: "GET", path: "/v1/memory", limited: false },
    { method: "GET", path: `/v1/memory/${memoryId}/relations`, limited: false },
    { method: "GET", path: `/v1/memory/${memoryId}`, limited: false },
  ];

  it("answers a dashboard JWT with 401 wrong_credential_type on every memory route", async () => {
    for (const route of routes()) {
      const response = await test.request(route.path, {
        method: route.method,
        json: route.json,
        credential: token,
      });
      expect(await errorCode(response, 401), `${route.method} ${route.path}`).toBe("wrong_credential_type");
    }
    expect((await test.request(`/v1/memory/${memoryId}`, { credential: key })).status).toBe(200);
  });

  it("answers a missing credential with 401 missing_credentials on every memory route", async () => {
    for (const route of routes()) {
      const response = await test.request(route.path, { method: route.method, json: route.json });
      expect(await errorCode(response, 401), `${route.method} ${route.path}`).toBe("missing_credentials");
    }
  });

  it("counts exactly POST memory, ingest, import, DELETE and export in memory_ops", async () => {
    // One token went on the set-up import.
    let remaining = limit - 1;
    for (const route of routes()) {
      const response = await test.request(route.path, {
        method: route.method,
        json: route.json,
        credential: key,
      });
      const label = `${route.method} ${route.path}`;
      expect(response.status, label).toBeLessThan(429);
      if (route.limited) {
        remaining -= 1;
        expect(response.headers.get("X-RateLimit-Limit"), label).toBe(String(limit));
        expect(response.headers.get("X-RateLimit-Remaining"), label).toBe(String(remaining));
      } else {
        expect(response.headers.get("X-RateLimit-Limit"), label).toBeNull();
        expect(response.headers.get("X-RateLimit-Remaining"), label).toBeNull();
      }
    }
    const limited = routes().filter((route) => route.limited);
    while (remaining > 0) {
      const route = limited[0];
      const response = await test.request(route.path, {
        method: route.method,
        json: route.json,
        credential: key,
      });
      remaining -= 1;
      expect(response.headers.get("X-RateLimit-Remaining")).toBe(String(remaining));
    }
    for (const route of limited) {
      const response = await test.request(route.path, {
        method: route.method,
        json: route.json,
        credential: key,
      });
      expect(response.headers.get("X-RateLimit-Remaining")).toBe("0");
      expect(response.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
      const body = await response.json();
      expect(response.status).toBe(429);
      expect(body.error).toMatchObject({ code: "rate_limited", details: { bucket: "memory_ops", limit } });
    }
    for (const route of routes().filter((entry) => !entry.limited)) {
      const response = await test.request(route.path, { method: route.method, credential: key });
      expect(response.status, `${route.method} ${route.path}`).toBe(200);
    }
  });

  it("keeps the bucket per account", async () => {
    const other = memoryClient(test, (await createAccountWithKey(test)).key);
    const response = await other.send("/v1/memory", {
      method: "POST",
      json: { content: "Another account writes." },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("X-RateLimit-Remaining")).toBe(String(limit - 1));
  });
});
