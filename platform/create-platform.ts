/**
 * The composition root: the only place that reads `SVC_*` configuration to pick plugins
 * (storage driver, rate-limit store, sandbox runtime) and wires them into core's Platform.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Clock,
  type Config,
  createDashboardTokens,
  createMemoryTokenBucketStore,
  type Logger,
  type PasswordHasher,
  type Platform,
  silentLogger,
  systemClock,
} from "../core/index.ts";
import { createArgon2Hasher } from "../plugins/passwords/create-argon2-hasher.ts";
import {
  createMemoryLoginGuard,
  createPostgresLoginGuard,
} from "../plugins/rate-limit/create-login-guard.ts";
import { createPostgresTokenBucketStore } from "../plugins/rate-limit/create-postgres-token-bucket-store.ts";
import { createStorage, isPostgresUrl, type SqlStorage } from "../plugins/storage/create-storage.ts";

export interface PlatformOverrides {
  clock?: Clock;
  logger?: Logger;
  passwords?: PasswordHasher;
}

export interface NodePlatform extends Platform {
  readonly storage: SqlStorage;
}

/** In development a missing JWT secret is generated once into the data dir; production refuses to start. */
async function jwtSecret(config: Config): Promise<string> {
  if (config.SVC_JWT_SECRET) {
    if (new TextEncoder().encode(config.SVC_JWT_SECRET).length < 32) {
      if (config.SVC_ENV === "production")
        throw new Error("SVC_JWT_SECRET must be at least 32 bytes in production");
    }
    return config.SVC_JWT_SECRET;
  }
  if (config.SVC_ENV === "production") throw new Error("SVC_JWT_SECRET is required in production");
  const path = join(config.SVC_DATA_DIR, "jwt-secret");
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
    await writeFile(path, secret, { mode: 0o600, flag: "wx" }).catch(() => {});
    return (await readFile(path, "utf8")).trim();
  }
}

export async function createPlatform(
  config: Config,
  overrides: PlatformOverrides = {},
): Promise<NodePlatform> {
  const logger = overrides.logger ?? silentLogger;
  await mkdir(config.SVC_DATA_DIR, { recursive: true, mode: 0o700 });
  const storage = await createStorage({
    databaseUrl: config.SVC_DATABASE_URL,
    sqlitePath: join(config.SVC_DATA_DIR, "cairn.db"),
    logger,
  });
  const sharedLimits = config.SVC_RATE_LIMIT_STORE === "postgres";
  if (sharedLimits && !isPostgresUrl(config.SVC_DATABASE_URL)) {
    throw new Error("SVC_RATE_LIMIT_STORE=postgres needs SVC_DATABASE_URL to point at PostgreSQL");
  }
  if (config.SVC_RATE_LIMIT_STORE === "redis")
    throw new Error("SVC_RATE_LIMIT_STORE=redis is not available yet; use memory or postgres");
  const loginGuard = sharedLimits
    ? await createPostgresLoginGuard(config.SVC_DATABASE_URL as string)
    : createMemoryLoginGuard();
  return {
    config,
    clock: overrides.clock ?? systemClock,
    logger,
    storage,
    passwords: overrides.passwords ?? createArgon2Hasher(),
    dashboardTokens: createDashboardTokens({
      secret: await jwtSecret(config),
      ttlMinutes: config.SVC_ACCESS_TOKEN_TTL_MINUTES,
    }),
    rateLimits: sharedLimits
      ? createPostgresTokenBucketStore(storage.execute)
      : createMemoryTokenBucketStore(),
    loginGuard,
    async close() {
      await loginGuard.close();
      await storage.close();
    },
  };
}
