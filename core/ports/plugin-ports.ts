/**
 * What a plugin may provide besides tools and hooks: implementations of core's ports, each under
 * a name (docs/plugins.md#ports). The composition root lists the built-in plugins (every folder of
 * plugins/ is one), then the plugins SVC_PLUGINS names, and takes each port from the last plugin
 * that offers it under the name in use, so a plugin replaces a built-in by offering its name.
 */
import type { Config } from "../config.ts";
import type { Clock } from "./clock.ts";
import type { Egress } from "./egress.ts";
import type { EmbeddingProvider } from "./embeddings.ts";
import type { ImageBuilder } from "./image-builder.ts";
import type { Logger } from "./logger.ts";
import type { PasswordHasher } from "./passwords.ts";
import { type LoginGuard, rateLimitStoreNames, type TokenBucketStore } from "./rate-limit.ts";
import { type SandboxRuntime, sandboxRuntimeNames } from "./sandbox-runtime.ts";
import type { Storage } from "./storage.ts";

/** What a port's factory is given: the configuration, and the process's logger and clock. */
export interface PortSetup {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Where token buckets and failed-login counts live, closed together. */
export interface RateLimitStores {
  readonly buckets: TokenBucketStore;
  readonly loginGuard: LoginGuard;
  close(): Promise<void>;
}

/** Each port a plugin may offer, and what it is. */
export interface Ports {
  readonly storage: Storage;
  readonly sandboxRuntime: SandboxRuntime;
  readonly imageBuilder: ImageBuilder;
  readonly rateLimits: RateLimitStores;
  readonly passwords: PasswordHasher;
  readonly egress: Egress;
  /** Null when semantic search is off (SVC_MEMORY_EMBEDDINGS_ENABLED=false). */
  readonly embeddings: EmbeddingProvider | null;
}

export type PortName = keyof Ports;

/**
 * The names each port may be offered under. Two are picked by a setting (SVC_SANDBOX_RUNTIME for
 * the runtime and the image builder, SVC_RATE_LIMIT_STORE); the others have one name each.
 */
export const portOfferNames = {
  storage: ["sql"],
  sandboxRuntime: sandboxRuntimeNames,
  imageBuilder: sandboxRuntimeNames,
  rateLimits: rateLimitStoreNames,
  passwords: ["argon2"],
  egress: ["http"],
  embeddings: ["openai-compatible"],
} as const satisfies { readonly [Port in PortName]: readonly string[] };

type OfferName<Port extends PortName> = (typeof portOfferNames)[Port][number];

/** What a plugin offers: for a port, a factory per name. */
export type PortOffers = {
  readonly [Port in PortName]?: {
    readonly [Name in OfferName<Port>]?: (setup: PortSetup) => Promise<Ports[Port]>;
  };
};

/** The name each port is taken by, given the configuration. */
export function portNamesInUse(config: Config): { readonly [Port in PortName]: OfferName<Port> } {
  return {
    storage: "sql",
    sandboxRuntime: config.SVC_SANDBOX_RUNTIME,
    imageBuilder: config.SVC_SANDBOX_RUNTIME,
    rateLimits: config.SVC_RATE_LIMIT_STORE,
    passwords: "argon2",
    egress: "http",
    embeddings: "openai-compatible",
  };
}
