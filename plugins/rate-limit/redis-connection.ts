/**
 * The Redis connection the shared rate-limit state uses (SVC_RATE_LIMIT_STORE=redis). Commands
 * fail fast instead of queueing while Redis is away, and such a failure is a 503
 * `service_unavailable` for the request, the way an unreachable database is, never a 500; the
 * client keeps reconnecting in the background, so the server recovers without a restart.
 */
import { Redis, ReplyError } from "ioredis";
import { dependencyRetryAfterSeconds, type Logger, ServiceError } from "../../core/index.ts";

/** Connects (so a wrong SVC_REDIS_URL stops the start) and reports losing and regaining Redis once each. */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reachable = false;
  redis.on("ready", () => {
    if (!reachable) logger.info({}, "rate-limit store: Redis reachable");
    reachable = true;
  });
  redis.on("error", (error: Error) => {
    if (reachable) logger.warn({ error: error.message }, "rate-limit store: Redis unreachable; retrying");
    reachable = false;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`SVC_REDIS_URL: cannot reach Redis (${(error as Error).message})`);
  }
  return redis;
}

/** Runs a Redis call; losing the connection becomes 503, a script or command error stays a bug. */
export async function whileRedisReachable<Result>(work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReplyError || error instanceof ServiceError) throw error;
    // The answer an unreachable database gets (core/dependency-failures.ts), Retry-After included.
    throw new ServiceError(
      "service_unavailable",
      "The rate-limit store (Redis) is unavailable; retry shortly",
      {
        cause: error,
        retryAfterSeconds: dependencyRetryAfterSeconds.service_unavailable,
      },
    );
  }
}
