import { describe, expect, it } from "vitest";
import { createMemoryTokenBucketStore, decide, refill } from "./token-bucket.ts";

describe("token bucket arithmetic", () => {
  it("starts full, refills continuously and caps at capacity", () => {
    expect(refill(undefined, 20, 0)).toBe(20);
    expect(refill({ tokens: 0, updatedAt: 0 }, 60, 500)).toBeCloseTo(0.5);
    expect(refill({ tokens: 5, updatedAt: 0 }, 10, 10 * 60_000)).toBe(10);
    expect(refill({ tokens: 5, updatedAt: 1000 }, 10, 0)).toBe(5); // a clock going back never adds tokens
  });

  it("Retry-After is the whole seconds until one token, at least 1", () => {
    expect(decide(0, 120).retryAfterSeconds).toBe(1);
    expect(decide(0, 10).retryAfterSeconds).toBe(6);
    expect(decide(0.5, 1).retryAfterSeconds).toBe(30);
    expect(decide(0.9999, 3).retryAfterSeconds).toBe(1);
    expect(decide(1, 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("keeps keys apart", async () => {
    const store = createMemoryTokenBucketStore();
    const now = new Date(0);
    expect((await store.consume("a", 1, now)).allowed).toBe(true);
    expect((await store.consume("a", 1, now)).allowed).toBe(false);
    expect((await store.consume("b", 1, now)).allowed).toBe(true);
    expect(await store.peek("a", 1, new Date(30_000))).toBe(0);
    expect(await store.peek("a", 1, new Date(60_000))).toBe(1);
  });
});
