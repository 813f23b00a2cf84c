/**
 * Background sandbox lifecycle: the reaper ends every session at its expiry whatever requests
 * do and removes what the runtime still holds for sessions that have ended, and start-up
 * reconciliation re-adopts what the runtime still holds for live sessions and removes the rest,
 * so neither a refused clean-up nor a restart leaks anything.
 */
import type { PlatformServices } from "../../platform-services.ts";

/** Ends every expired active session; one replica at a time. Returns how many it ended. */
export async function reapExpiredSandboxes(platform: PlatformServices): Promise<number> {
  let ended = 0;
  const ran = await platform.storage.runExclusive("sandbox-reaper", async () => {
    const now = platform.clock.now();
    for (const session of await platform.storage.sandboxSessions.expired(now)) {
      try {
        await platform.sandboxRuntime.destroy(session.id);
      } catch (error) {
        // Still end the session: billing stops at expiry, and the sweep below retries the clean-up.
        platform.logger.error({ err: error, sessionId: session.id }, "reaper could not destroy a sandbox");
      }
      // The session ends (and bills) at its expiry, not at whenever the reaper came by.
      if (await platform.storage.sandboxSessions.end(session.id, "expired", session.expiresAt)) ended++;
    }
    await sweepEndedSandboxes(platform);
    // Preview links past their expiry, of any sandbox (docs/sandboxes.md#previews).
    await platform.previews.sweep();
  });
  // Debug: with replicas it happens whenever two runs meet; a test of the lease waits for it.
  if (!ran) platform.logger.debug({}, "reaper run skipped: another replica holds the lease");
  if (ended > 0) platform.logger.info({ ended }, "reaped expired sandboxes");
  return ended;
}

/**
 * Removes what the runtime still holds of sessions that have ended: a destroy or a reaper run
 * whose clean-up the runtime refused (an operator's RBAC without `delete` on pods, a cluster
 * that was down) ended the session and answered, so nothing else would retry it until a restart.
 * The runtime is read first: a sandbox exists only after its active session row is committed, so
 * one without an active row has ended. A failure is logged; the next run tries again.
 */
async function sweepEndedSandboxes(platform: PlatformServices): Promise<void> {
  try {
    const held = await platform.sandboxRuntime.list();
    if (held.length === 0) return;
    const active = new Set((await platform.storage.sandboxSessions.allActive()).map((session) => session.id));
    let removed = 0;
    for (const id of held) {
      if (active.has(id)) continue;
      try {
        await platform.sandboxRuntime.destroy(id);
        removed++;
      } catch (error) {
        platform.logger.error({ err: error, sessionId: id }, "reaper could not remove an ended sandbox");
      }
    }
    if (removed > 0) platform.logger.info({ removed }, "removed the sandboxes of ended sessions");
  } catch (error) {
    platform.logger.error({ err: error }, "reaper could not list the runtime's sandboxes");
  }
}

// A session younger than this may still be starting (its row is written before its sandbox, on
// this replica or another), so a missing sandbox does not end it yet.
const startingGraceMilliseconds = 5 * 60_000;

/**
 * Matches the runtime's sandboxes with the database at start-up, while requests may already be
 * served. The runtime is read first: a sandbox exists only after its session row is committed,
 * so every sandbox seen has its row in the database read that follows.
 */
export async function reconcileSandboxes(platform: PlatformServices) {
  const { sandboxSessions } = platform.storage;
  // Before anything else: a session created before this moment was not created by this server.
  const started = platform.clock.now();
  const held = new Set(await platform.sandboxRuntime.list());
  const now = platform.clock.now();
  const active = (await sandboxSessions.allActive()).filter((session) => session.expiresAt > now);
  const live = new Set(active.map((session) => session.id));
  let removed = 0;
  for (const id of held) {
    if (live.has(id)) continue;
    await platform.sandboxRuntime.destroy(id);
    removed++;
  }
  // Sessions whose sandbox is gone cannot be used: end them, unless they may still be starting
  // (on a runtime that creates alone, only this server's own sessions may).
  let ended = 0;
  for (const session of active) {
    if (held.has(session.id)) continue;
    const settled = platform.sandboxRuntime.createsAlone
      ? session.createdAt < started
      : now.getTime() - session.createdAt.getTime() > startingGraceMilliseconds;
    if (!settled) continue;
    if (session.connectNote === null) {
      // Its create never answered (a crash came first): like a failed create, it bills nothing.
      await sandboxSessions.discard([session.id]);
      ended++;
    } else if (await sandboxSessions.end(session.id, "destroyed", now)) ended++;
  }
  await reapExpiredSandboxes(platform);
  const adopted = active.filter((session) => held.has(session.id)).length;
  platform.logger.info({ adopted, removed, ended }, "sandboxes reconciled");
  return { adopted, removed, ended };
}

/**
 * The background sandbox work of a server: reconciliation once (in the background, so the API
 * answers at once; a runtime that cannot be reached yet is logged, not fatal), then the reaper.
 * Returns a stopper that resolves once the work in flight has finished (storage can then close
 * under nothing).
 */
export function startSandboxLifecycle(platform: PlatformServices): () => Promise<void> {
  const reconciling = reconcileSandboxes(platform).catch((error: unknown) =>
    platform.logger.error({ err: error }, "sandbox reconciliation failed"),
  );
  const stopReaper = startSandboxReaper(platform);
  return async () => {
    await stopReaper();
    await reconciling;
  };
}

/** Runs the reaper every `SVC_SESSION_REAPER_INTERVAL_SECONDS`; returns a stopper that waits for a run in flight. */
export function startSandboxReaper(platform: PlatformServices): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = reapExpiredSandboxes(platform).catch((error: unknown) =>
      platform.logger.error({ err: error }, "reaper failed"),
    );
  }, platform.config.SVC_SESSION_REAPER_INTERVAL_SECONDS * 1000);
  (timer as { unref?: () => void }).unref?.();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
