/**
 * Preview links of sandbox ports (docs/sandboxes.md#previews): each link is an unguessable token
 * (32 random bytes, stored only as its SHA-256 digest) bound to one account, sandbox and port,
 * with an expiry; and the relays that carry the traffic (relay-pool.ts). Links live in the
 * database (the `previewLinks` storage port), so every replica resolves, lists and revokes the
 * same ones and a restart keeps them; a destroyed sandbox's links are deleted, expired ones swept.
 *
 * A link found usable is kept in this process for `previewCacheMilliseconds`, so a page's burst of
 * requests is not a database read each. A revoke or destroy made through this process forgets it
 * at once; one made through another replica is honoured here once that time has passed. Unknown
 * tokens are never kept: a link minted on another replica works here at once.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import type { PreviewLinkRecord, PreviewLinkRepository } from "../../ports/preview-storage.ts";
import type { SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import type { PortConnection } from "./relay.ts";
import { createRelayPool } from "./relay-pool.ts";

export type PreviewRecord = PreviewLinkRecord;

/** Requests a minute an account's previews may take (the `preview_traffic` bucket). */
export const previewTrafficPerMinute = 1200;

/** How long a replica keeps a link it found usable: the most another replica's revoke can lag. */
export const previewCacheMilliseconds = 2_000;

/** Links kept at most in one process (the oldest goes first). */
const keptLinksLimit = 10_000;

function base64Url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A token's stored form. Hashed on this thread: WebCrypto's trip to the thread pool cost each
 * preview request more than hashing a 43-character token takes. */
function digestOf(token: string): string {
  return base64Url(sha256(new TextEncoder().encode(token)));
}

export interface SandboxPreviewsOptions {
  links: PreviewLinkRepository;
  /** The platform's clock, which expiries are measured on. */
  now: () => Date;
  /** How long a usable link is kept (ms); `previewCacheMilliseconds` by default. */
  cacheMilliseconds?: number;
}

export function createSandboxPreviews(options: SandboxPreviewsOptions) {
  const { links } = options;
  const relays = createRelayPool();
  const cacheMilliseconds = options.cacheMilliseconds ?? previewCacheMilliseconds;
  const kept = new Map<string, { record: PreviewRecord; until: number }>();
  // Moves whenever kept links may have been revoked or deleted: a lookup that began before is not kept.
  let generation = 0;

  const forgetKept = (matches: (record: PreviewRecord) => boolean) => {
    generation++;
    for (const [digest, entry] of kept) if (matches(entry.record)) kept.delete(digest);
  };

  const keep = (digest: string, record: PreviewRecord) => {
    if (kept.size >= keptLinksLimit) {
      const oldest = kept.keys().next();
      if (!oldest.done) kept.delete(oldest.value);
    }
    kept.set(digest, { record, until: performance.now() + cacheMilliseconds });
  };

  /** The sandbox ended: its links (everywhere) and its relay (here) go. */
  const forgetSession = async (sessionId: string) => {
    forgetKept((record) => record.sessionId === sessionId);
    relays.end(sessionId);
    // Not fatal to the destroy: the lookup refuses the links of an ended sandbox anyway (it joins
    // the sandbox), and the reaper sweeps them at their expiry.
    await links.deleteForSession(sessionId).catch(() => {});
    forgetKept((record) => record.sessionId === sessionId);
  };

  return {
    async mint(accountId: string, sessionId: string, port: number, ttlSeconds: number) {
      const token = base64Url(crypto.getRandomValues(new Uint8Array(32)));
      const createdAt = options.now();
      const record: PreviewRecord = {
        tokenId: `prv_${base64Url(crypto.getRandomValues(new Uint8Array(12)))}`,
        accountId,
        sessionId,
        port,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + ttlSeconds * 1000),
      };
      await links.create(digestOf(token), record);
      return { token, record };
    },
    /** The link's record while it is unexpired, unrevoked and its sandbox active, else null. */
    async resolve(token: string): Promise<PreviewRecord | null> {
      if (token.length < 20 || token.length > 100) return null;
      const digest = digestOf(token);
      const now = options.now();
      const hit = kept.get(digest);
      if (hit && hit.until > performance.now() && hit.record.expiresAt > now) return hit.record;
      if (hit) kept.delete(digest);
      const before = generation;
      const record = await links.findUsable(digest, now);
      if (record && generation === before) keep(digest, record);
      return record;
    },
    /** Idempotent: an unknown or already revoked id is no error. */
    async revoke(accountId: string, sessionId: string, port: number, tokenId: string): Promise<void> {
      const matches = (record: PreviewRecord) =>
        record.tokenId === tokenId &&
        record.accountId === accountId &&
        record.sessionId === sessionId &&
        record.port === port;
      forgetKept(matches);
      try {
        await links.revoke({ accountId, sessionId, port, tokenId }, options.now());
      } finally {
        // A lookup that read the link before the revoke committed is not kept either.
        forgetKept(matches);
      }
    },
    /** The sandbox's unexpired, unrevoked links, oldest first. */
    list(accountId: string, sessionId: string): Promise<PreviewRecord[]> {
      return links.list(accountId, sessionId, options.now());
    },
    /** Deletes expired links (the reaper's run, on one replica at a time); returns how many. */
    sweep(): Promise<number> {
      return links.purgeExpired(options.now());
    },
    /** A connection to the port on the sandbox's own loopback, through its relay (started once). */
    connect(runtime: SandboxRuntime, sessionId: string, port: number): Promise<PortConnection> {
      return relays.connect(runtime, sessionId, port);
    },
    /** The runtime, with every destroy also ending the sandbox's links and relay. */
    endingWithSessions(runtime: SandboxRuntime): SandboxRuntime {
      return new Proxy(runtime, {
        get(target, property, receiver) {
          if (property === "destroy") {
            return async (id: string) => {
              await forgetSession(id);
              return target.destroy(id);
            };
          }
          return Reflect.get(target, property, receiver);
        },
      });
    },
    /** Ends this process's relays; the links stay in the database. */
    close(): void {
      relays.close();
      kept.clear();
    },
  };
}

export type SandboxPreviews = ReturnType<typeof createSandboxPreviews>;
