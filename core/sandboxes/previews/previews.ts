/**
 * Preview links of sandbox ports (docs/sandboxes.md#previews): each link is an unguessable token
 * (32 random bytes, kept only as its SHA-256 digest) bound to one account, sandbox and port, with
 * an expiry; and one relay process per sandbox (relay.ts) that carries the traffic. Held in this
 * process: a restart forgets every link (they are minutes-long and cheap to mint again), and a
 * destroyed sandbox's links and relay go with it.
 */
import { ServiceError } from "../../errors.ts";
import type { SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { connectRelay, type PortConnection, type Relay, relayCommand } from "./relay.ts";

export interface PreviewRecord {
  tokenId: string;
  accountId: string;
  sessionId: string;
  port: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Requests a minute an account's previews may take (the `preview_traffic` bucket). */
export const previewTrafficPerMinute = 1200;

function base64Url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function digestOf(token: string): Promise<string> {
  return base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))));
}

export function createSandboxPreviews(options: { now: () => Date }) {
  const byDigest = new Map<string, PreviewRecord>();
  const relays = new Map<string, Promise<Relay>>();

  const forget = (sessionId: string) => {
    for (const [digest, record] of byDigest) if (record.sessionId === sessionId) byDigest.delete(digest);
    const relay = relays.get(sessionId);
    relays.delete(sessionId);
    void relay?.then((started) => started.close()).catch(() => {});
  };

  const sweep = () => {
    const now = options.now();
    for (const [digest, record] of byDigest) if (record.expiresAt <= now) byDigest.delete(digest);
  };

  return {
    async mint(accountId: string, sessionId: string, port: number, ttlSeconds: number) {
      sweep();
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
      byDigest.set(await digestOf(token), record);
      return { token, record };
    },
    /** The link's record while it is unexpired and unrevoked, else null. */
    async resolve(token: string): Promise<PreviewRecord | null> {
      if (token.length < 20 || token.length > 100) return null;
      const record = byDigest.get(await digestOf(token));
      if (!record || record.expiresAt <= options.now()) return null;
      return record;
    },
    /** Idempotent: an unknown or already revoked id is no error. */
    revoke(accountId: string, sessionId: string, port: number, tokenId: string): void {
      for (const [digest, record] of byDigest) {
        if (
          record.tokenId === tokenId &&
          record.accountId === accountId &&
          record.sessionId === sessionId &&
          record.port === port
        )
          byDigest.delete(digest);
      }
    },
    list(accountId: string, sessionId: string): PreviewRecord[] {
      sweep();
      return [...byDigest.values()].filter(
        (record) => record.accountId === accountId && record.sessionId === sessionId,
      );
    },
    /** A connection to the port on the sandbox's own loopback, through its relay (started once). */
    async connect(runtime: SandboxRuntime, sessionId: string, port: number): Promise<PortConnection> {
      if (!runtime.spawnProcess) {
        throw new ServiceError("service_unavailable", "This sandbox runtime cannot serve previews");
      }
      const spawn = runtime.spawnProcess.bind(runtime);
      let relay = relays.get(sessionId);
      if (relay === undefined) {
        relay = spawn(sessionId, { command: relayCommand, kind: "command", env: {} }).then((process) => {
          const started = connectRelay(process);
          void started.ended.then(() => {
            if (relays.get(sessionId) === relay) relays.delete(sessionId);
          });
          return started;
        });
        relays.set(sessionId, relay);
        relay.catch(() => relays.delete(sessionId));
      }
      return (await relay).open(port);
    },
    /** The runtime, with every destroy also ending the sandbox's links and relay. */
    endingWithSessions(runtime: SandboxRuntime): SandboxRuntime {
      return new Proxy(runtime, {
        get(target, property, receiver) {
          if (property === "destroy") {
            return (id: string) => {
              forget(id);
              return target.destroy(id);
            };
          }
          return Reflect.get(target, property, receiver);
        },
      });
    },
    close(): void {
      for (const sessionId of [...relays.keys()]) forget(sessionId);
      byDigest.clear();
    },
  };
}

export type SandboxPreviews = ReturnType<typeof createSandboxPreviews>;
