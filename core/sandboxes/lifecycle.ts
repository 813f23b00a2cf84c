/**
 * Background sandbox lifecycle: the reaper ends every session at its expiry whatever requests
 * do, and start-up reconciliation re-adopts what the runtime still holds for live sessions and
 * removes the rest, so a restart leaks nothing.
 */
import type { Platform } from "../platform.ts";

/** Ends every expired active session; one replica at a time. Returns how many it ended. */
export async function reapExpiredSandboxes(platform: Platform): Promise<number> {
  let ended = 0;
  await platform.storage.runExclusive("sandbox-reaper", async () => {
    const now = platform.clock.now();
    for (const session of await platform.storage.sandboxSessions.expired(now)) {
      try {
        await platform.sandboxRuntime.destroy(session.id);
      } catch (error) {
        // Still end the session: billing stops at expiry, and reconciliation retries the clean-up.
        platform.logger.error({ err: error, sessionId: session.id }, "reaper could not destroy a sandbox");
      }
      // The session ends (and bills) at its expiry, not at whenever the reaper came by.
      if (await platform.storage.sandboxSessions.end(session.id, "expired", session.expiresAt)) ended++;
    }
  });
  if (ended > 0) platform.logger.info({ ended }, "reaped expired sandboxes");
  return ended;
}

/** Matches the runtime's sandboxes with the database at start-up. */
export async function reconcileSandboxes(platform: Platform) {
  const now = platform.clock.now();
  const { sandboxSessions } = platform.storage;
  const live = new Set<string>();
  let ended = 0;
  for (const session of await sandboxSessions.allActive()) {
    if (session.expiresAt > now) live.add(session.id);
  }
  const held = new Set(await platform.sandboxRuntime.list());
  let removed = 0;
  for (const id of held) {
    if (live.has(id)) continue;
    await platform.sandboxRuntime.destroy(id);
    removed++;
  }
  // Active sessions whose sandbox is gone cannot be used: end them.
  for (const id of live) {
    if (!held.has(id) && (await sandboxSessions.end(id, "destroyed", now))) ended++;
  }
  await reapExpiredSandboxes(platform);
  const adopted = [...live].filter((id) => held.has(id)).length;
  platform.logger.info({ adopted, removed, ended }, "sandboxes reconciled");
  return { adopted, removed, ended };
}

/** Runs the reaper every `SVC_SESSION_REAPER_INTERVAL_SECONDS`; returns a stopper. */
export function startSandboxReaper(platform: Platform): () => void {
  const timer = setInterval(() => {
    reapExpiredSandboxes(platform).catch((error: unknown) =>
      platform.logger.error({ err: error }, "reaper failed"),
    );
  }, platform.config.SVC_SESSION_REAPER_INTERVAL_SECONDS * 1000);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
