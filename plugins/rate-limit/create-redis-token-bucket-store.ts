/**
 * Token buckets shared by every replica, in Redis. One Lua script refills and takes a token
 * atomically (Redis runs a script alone), in one round trip, with the platform clock's time as
 * the PostgreSQL store's `cairn_take_token` does; the arithmetic is core's (core/token-bucket.ts).
 */
import type { Redis } from "ioredis";
import type { TokenBucketStore } from "../../core/index.ts";
import { decide, refill } from "../../core/index.ts";
import { whileRedisReachable } from "./redis-connection.ts";

// A bucket untouched for a minute is full again, the same as no bucket: Redis may drop it after
// two (the slack covers clocks that differ between replicas and Redis).
const idleMilliseconds = 120_000;

// KEYS[1] the bucket; ARGV capacity, now (epoch ms), idle expiry (ms). Numbers are stored and
// returned as %.17g strings so a level survives the round trip bit for bit (Redis would truncate
// a returned Lua number to an integer). The time never moves backwards for a bucket.
const takeToken = `
local capacity = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated_at')
local level = capacity
local updated = now
if state[1] then
  updated = tonumber(state[2])
  level = math.min(capacity, tonumber(state[1]) + math.max(0, now - updated) * (capacity / 60000))
end
local allowed = level >= 1
if allowed then level = level - 1 end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', level),
  'updated_at', string.format('%.17g', math.max(updated, now)))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { allowed and 1 or 0, string.format('%.17g', level) }
`;

const keyPrefix = "cairn:bucket:";

export function createRedisTokenBucketStore(redis: Redis): TokenBucketStore {
  return {
    async consume(key, capacity, now) {
      const [allowed, remainingTokens] = await whileRedisReachable(
        () =>
          redis.eval(takeToken, 1, keyPrefix + key, capacity, now.getTime(), idleMilliseconds) as Promise<
            [number, string]
          >,
      );
      const level = Number(remainingTokens);
      if (allowed === 1) return { allowed: true, remaining: Math.floor(level), retryAfterSeconds: 0 };
      const { retryAfterSeconds } = decide(level, capacity);
      return { allowed: false, remaining: 0, retryAfterSeconds };
    },
    async peek(key, capacity, now) {
      const [tokens, updatedAt] = await whileRedisReachable(() =>
        redis.hmget(keyPrefix + key, "tokens", "updated_at"),
      );
      if (tokens === null || updatedAt === null) return capacity;
      return Math.floor(
        refill({ tokens: Number(tokens), updatedAt: Number(updatedAt) }, capacity, now.getTime()),
      );
    },
  };
}
