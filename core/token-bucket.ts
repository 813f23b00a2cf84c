/**
 * Token-bucket arithmetic, shared by every rate-limit store so they agree to the token.
 * rate-limiter-flexible has no token bucket (its limiters are fixed windows), hence this.
 */
import type { BucketDecision } from "./ports/rate-limit.ts";

export interface BucketState {
  tokens: number;
  updatedAt: number; // epoch milliseconds
}

export function refill(state: BucketState | undefined, capacity: number, now: number): number {
  if (!state) return capacity;
  const perMillisecond = capacity / 60_000;
  return Math.min(capacity, state.tokens + Math.max(0, now - state.updatedAt) * perMillisecond);
}

export function decide(available: number, capacity: number): BucketDecision & { tokens: number } {
  if (available >= 1) {
    const tokens = available - 1;
    return { allowed: true, tokens, remaining: Math.floor(tokens), retryAfterSeconds: 0 };
  }
  const secondsPerToken = 60 / capacity;
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - available) * secondsPerToken - 1e-9));
  return { allowed: false, tokens: available, remaining: 0, retryAfterSeconds };
}

/** The in-process store (one replica). */
export function createMemoryTokenBucketStore() {
  const buckets = new Map<string, BucketState>();
  return {
    async consume(key: string, capacity: number, now: Date): Promise<BucketDecision> {
      const at = now.getTime();
      const decision = decide(refill(buckets.get(key), capacity, at), capacity);
      buckets.set(key, { tokens: decision.tokens, updatedAt: at });
      return {
        allowed: decision.allowed,
        remaining: decision.remaining,
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    },
    async peek(key: string, capacity: number, now: Date): Promise<number> {
      return Math.floor(refill(buckets.get(key), capacity, now.getTime()));
    },
  };
}
