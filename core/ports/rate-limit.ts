/**
 * Rate-limit stores. A token bucket per key: capacity = the per-minute limit, refilled
 * continuously at limit/60 tokens a second (docs/rate-limits.md). Stores differ only in where the
 * bucket lives (process memory, PostgreSQL); the arithmetic is the same.
 */
/** Where rate-limit state may live; SVC_RATE_LIMIT_STORE picks one. */
export const rateLimitStoreNames = ["memory", "postgres", "redis"] as const;
export type RateLimitStoreName = (typeof rateLimitStoreNames)[number];

export interface BucketDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Whole seconds until one token is available (0 when allowed). */
  retryAfterSeconds: number;
}

export interface TokenBucketStore {
  consume(key: string, capacity: number, now: Date): Promise<BucketDecision>;
  /** A read-only look at a bucket (GET /v1/usage). */
  peek(key: string, capacity: number, now: Date): Promise<number>;
}

/**
 * Consecutive failed logins per email+IP (docs/rate-limits.md#failed-logins): 10 failures
 * block the pair for 15 minutes.
 */
export interface LoginGuard {
  /** Seconds the pair stays blocked, or 0. */
  blockedFor(key: string): Promise<number>;
  recordFailure(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}
