/**
 * The `sandbox_ops` bucket (docs/rate-limits.md#buckets) on real execs: 121 rapid calls give 120 successes
 * with a falling X-RateLimit-Remaining and one 429 with Retry-After, per account. The clock is
 * frozen, so the bucket does not refill while the calls run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

describe("exec rate limit", () => {
  const clock = createFakeClock(new Date("2026-04-01T10:00:00Z"));
  let test: TestPlatform;
  let alice: SandboxClient;
  let bob: SandboxClient;
  let aliceSession: string;
  let bobSession: string;

  beforeAll(async () => {
    // The documented default of 120 per minute, set explicitly over the suites' generous default.
    test = await createSandboxPlatform("sqlite", {
      clock,
      environment: { SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "120" },
    });
    [alice, bob] = await Promise.all([createSandboxClient(test), createSandboxClient(test)]);
    aliceSession = (await alice.createActive()).id;
    bobSession = (await bob.createActive()).id;
  });
  afterAll(() => test.close());

  it("gives 120 successes with falling X-RateLimit-Remaining, then a 429 with Retry-After", async () => {
    const remaining: number[] = [];
    for (let call = 0; call < 120; call++) {
      const response = await alice.exec(aliceSession, "true");
      expect(response.status).toBe(200);
      expect(response.body.exit_code).toBe(0);
      expect(response.headers.get("x-ratelimit-limit")).toBe("120");
      remaining.push(Number(response.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, index) => 119 - index));

    const refused = await alice.exec(aliceSession, "true");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("120");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    // Two tokens a second: the next one is half a second away, rounded up to whole seconds.
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({
      error: {
        code: "rate_limited",
        retryable: true,
        details: { bucket: "sandbox_ops", limit: 120, retry_after_seconds: 1 },
      },
    });

    // A refused call runs nothing, and the file routes share the bucket.
    expect((await alice.exec(aliceSession, "touch refused.txt")).status).toBe(429);
    const view = await alice.send(`/v1/sandboxes/${aliceSession}/files/ls`, { method: "POST", json: {} });
    expect(view.status).toBe(429);
    const usage = await alice.usage();
    expect(usage.body).toMatchObject({ sandbox_ops_rate_limit_remaining: 0, sandbox_ops_rate_limit: 120 });
    // Reading usage is not rate limited and takes no token.
    expect(usage.headers.get("x-ratelimit-remaining")).toBeNull();
  });

  it("lets a second account's calls pass meanwhile", async () => {
    for (let call = 0; call < 3; call++) {
      const response = await bob.exec(bobSession, "true");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(119 - call));
    }
    expect((await bob.usage()).body.sandbox_ops_rate_limit_remaining).toBe(117);
  });

  it("serves the first account again once Retry-After has passed", async () => {
    clock.advance(1000);
    const response = await alice.exec(aliceSession, "ls");
    expect(response.status).toBe(200);
    // The earlier refusals ran nothing.
    expect(response.body.stdout).toBe("");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("1");
  });
});
