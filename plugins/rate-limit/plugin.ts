/**
 * The rate-limit plugin: where token buckets and failed-login counts live (SVC_RATE_LIMIT_STORE):
 * this process, PostgreSQL (its own small pool on SVC_DATABASE_URL) or Redis, the last two shared
 * by every replica (docs/rate-limits.md).
 */
import pg from "pg";
import { createMemoryTokenBucketStore, definePlugin, version } from "../../core/index.ts";
import {
  createMemoryLoginGuard,
  createPostgresLoginGuard,
  createRedisLoginGuard,
} from "./create-login-guard.ts";
import { createPostgresTokenBucketStore } from "./create-postgres-token-bucket-store.ts";
import { createRedisTokenBucketStore } from "./create-redis-token-bucket-store.ts";
import { connectRedis } from "./redis-connection.ts";

export default definePlugin({
  name: "rate-limit",
  version,
  ports: {
    rateLimits: {
      async memory() {
        const loginGuard = createMemoryLoginGuard();
        return { buckets: createMemoryTokenBucketStore(), loginGuard, close: loginGuard.close };
      },
      async postgres({ config }) {
        const url = config.SVC_DATABASE_URL;
        if (!url || !/^postgres(ql)?:\/\//.test(url))
          throw new Error("SVC_RATE_LIMIT_STORE=postgres needs SVC_DATABASE_URL to point at PostgreSQL");
        const pool = new pg.Pool({ connectionString: url, max: 4 });
        // An idle connection the database ends (a restart) is reported on the pool; unheard, that
        // event would end the process. The storage's pool logs the same outage; the next call reconnects.
        pool.on("error", () => {});
        const loginGuard = await createPostgresLoginGuard(pool);
        return { buckets: createPostgresTokenBucketStore(pool), loginGuard, close: loginGuard.close };
      },
      async redis({ config, logger }) {
        if (!config.SVC_REDIS_URL) throw new Error("SVC_RATE_LIMIT_STORE=redis needs SVC_REDIS_URL");
        const redis = await connectRedis(config.SVC_REDIS_URL, logger);
        const loginGuard = createRedisLoginGuard(redis);
        return { buckets: createRedisTokenBucketStore(redis), loginGuard, close: loginGuard.close };
      },
    },
  },
});
