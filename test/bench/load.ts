/**
 * Two noisy accounts at twice their limits and a quiet one below its own, against the real server
 * on each rate-limit store: prints, per store, what each noisy account sent and was granted
 * against its bucket's arithmetic, and the quiet account's p95 latency alone and beside the noisy
 * ones. The window is a minute unless CAIRN_LOAD_WINDOW_SECONDS says otherwise; the stores are
 * memory, postgres and redis unless CAIRN_LOAD_STORES lists fewer (postgres needs
 * SVC_TEST_DATABASE_URL, redis the redis-server the test set-up installs). Limits are the
 * defaults (memory_ops 120 a minute). Run with `npx node test/bench/load.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AccountLoad, bucketBounds, driveAccount, percentile95 } from "../support/account-load.ts";
import { createTestDatabase } from "../support/platforms.ts";
import { signUpWithKey, startServer } from "../support/processes.ts";
import { startTestRedis } from "../support/redis.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");
const windowSeconds = Number(process.env.CAIRN_LOAD_WINDOW_SECONDS ?? 60);
const stores = (process.env.CAIRN_LOAD_STORES ?? "memory,postgres,redis").split(",");
const limit = 120;

const milliseconds = (value: number) => `${value.toFixed(1)} ms`;

async function withServer<T>(store: string, work: (baseUrl: string) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-load-"));
  const database = store === "postgres" ? await createTestDatabase() : undefined;
  const redis = store === "redis" ? await startTestRedis() : undefined;
  const server = await startServer(process.execPath, [entry], {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "warn",
    SVC_RATE_LIMIT_STORE: store,
    ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    ...(redis ? { SVC_REDIS_URL: redis.url } : {}),
  });
  try {
    // Warm-up from an account of its own: the first writes compile code paths and fill caches.
    const warmUp = (await signUpWithKey(server.baseUrl)).key;
    for (let index = 0; index < 30; index++) {
      await fetch(`${server.baseUrl}/v1/memory`, {
        method: "POST",
        headers: { authorization: `Bearer ${warmUp}`, "content-type": "application/json" },
        body: JSON.stringify({ scope: "warm-up", content: `Warm-up note ${index}` }),
      });
    }
    return await work(server.baseUrl);
  } finally {
    await server.stop();
    await redis?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The quiet account: half its refill rate, no burst; every request should find a token. */
const quiet = (baseUrl: string, key: string) =>
  driveAccount({ baseUrl, key, limit, burst: false, ratePerSecond: limit / 60 / 2, windowSeconds });

const noisy = (baseUrl: string, key: string) =>
  driveAccount({ baseUrl, key, limit, burst: true, ratePerSecond: (2 * limit) / 60, windowSeconds });

function describeNoisy(name: string, load: AccountLoad): string {
  const { fewest, most } = bucketBounds(load, limit);
  const within = load.allowed >= fewest && load.allowed <= most ? "within" : "OUTSIDE";
  return `${name}: sent ${load.sent}, granted ${load.allowed}, refused ${load.refused} (429), nonconforming ${load.nonconforming.length}; bucket allows ${fewest + 1}-${most - 1} (±1): ${within}`;
}

function describeQuiet(name: string, load: AccountLoad): string {
  return `${name}: sent ${load.sent}, granted ${load.allowed}, refused ${load.refused}, nonconforming ${load.nonconforming.length}, p95 ${milliseconds(percentile95(load.latencies))}`;
}

console.log(
  `window ${windowSeconds} s, memory_ops ${limit}/min; noisy accounts spend their bucket, then send ${(2 * limit) / 60}/s; the quiet one sends ${limit / 60 / 2}/s`,
);
for (const store of stores) {
  const alone = await withServer(store, async (baseUrl) =>
    quiet(baseUrl, (await signUpWithKey(baseUrl)).key),
  );
  const beside = await withServer(store, async (baseUrl) => {
    const [first, second, third] = [
      await signUpWithKey(baseUrl),
      await signUpWithKey(baseUrl),
      await signUpWithKey(baseUrl),
    ];
    const [quietLoad, firstLoad, secondLoad] = await Promise.all([
      quiet(baseUrl, first.key),
      noisy(baseUrl, second.key),
      noisy(baseUrl, third.key),
    ]);
    return { quietLoad, firstLoad, secondLoad };
  });
  console.log(`\n${store} store`);
  console.log(`  ${describeNoisy("noisy account 1", beside.firstLoad)}`);
  console.log(`  ${describeNoisy("noisy account 2", beside.secondLoad)}`);
  console.log(`  ${describeQuiet("quiet account alone        ", alone)}`);
  console.log(`  ${describeQuiet("quiet account beside noisy ", beside.quietLoad)}`);
}
