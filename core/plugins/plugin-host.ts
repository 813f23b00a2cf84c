/**
 * The plugin host's running part (docs/plugins.md#hooks): it enqueues events for the plugins that
 * hook them, durably before the request that caused them answers, and a background worker
 * delivers them after commit, at least once: a row leaves the queue only when its hook returned;
 * a hook that throws is logged and tried again with exponential backoff; rows a crash left are
 * delivered after the restart. Delivery never runs inside, or delays, the causing request.
 */
import type { PlatformServices } from "../platform-services.ts";
import type { Clock } from "../ports/clock.ts";
import type { Logger } from "../ports/logger.ts";
import type { MemoryRecord } from "../ports/memory-store.ts";
import type { PluginEventRecord, SandboxActivity } from "../ports/plugin-storage.ts";
import type { SandboxActivityRecorder } from "../ports/sandbox-activity.ts";
import type { SandboxSessionRepository, Storage } from "../ports/storage.ts";
import type { Plugin } from "./define-plugin.ts";
import { createPluginContext, type PluginContext } from "./plugin-context.ts";
import {
  type PluginEventName,
  type PluginEvents,
  type SandboxDestroyedEvent,
  sandboxActivityLimits,
} from "./plugin-events.ts";

/**
 * Backoff of a failed delivery: 1 s, 2 s, 4 s … at most 10 minutes; dropped (logged) after 20
 * tries. A hook still running after `timeoutSeconds` has failed (its context's signal aborts), so
 * one hook that never returns cannot hold up every other delivery.
 */
export const hookRetry = { firstSeconds: 1, maxSeconds: 600, attempts: 20, timeoutSeconds: 60 };

/** How often the worker looks at the queue when nothing woke it (another replica's events). */
const idlePollMilliseconds = 30_000;
const batchSize = 50;

/** Operations see the host only as its `SandboxActivityRecorder` (`platform.plugins`). */
export interface PluginHost extends SandboxActivityRecorder {
  readonly plugins: readonly Plugin[];
  /** Whether a loaded plugin hooks the event (nothing is recorded or enqueued otherwise). */
  subscribes(event: PluginEventName): boolean;
  /** Enqueues the event for every plugin that hooks it; resolves once the rows are committed. */
  emit<Event extends PluginEventName>(
    event: Event,
    accountId: string,
    payload: PluginEvents[Event],
  ): Promise<void>;
  /**
   * Queues `memory.remembered` for memories remember and ingest wrote, from the memory writer's
   * durable queue before it links them (so at least once, a crash in between included).
   */
  remembered(accountId: string, memories: readonly MemoryRecord[]): Promise<void>;
  /** The session repository whose `end`, whatever calls it (destroy, reaper, start-up), emits `sandbox.destroyed`. */
  emittingOnEnd(sessions: SandboxSessionRepository): SandboxSessionRepository;
  /** Starts delivering; hooks' contexts reach the platform's operations. */
  start(platform: PlatformServices): void;
  /** Stops delivering and waits for the delivery in flight. */
  close(): Promise<void>;
}

export interface PluginHostSettings {
  plugins: readonly Plugin[];
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** Seconds a due event waits more before delivery (SVC_PLUGIN_EVENT_DELAY_SECONDS; tests pause delivery with it). */
  delaySeconds: number;
}

const cut = (text: string, length: number) => (text.length > length ? text.slice(0, length) : text);

function describeError(error: unknown): string {
  return cut(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 2_000);
}

export function createPluginHost(settings: PluginHostSettings): PluginHost {
  const { plugins, storage, clock, logger } = settings;
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]));
  const hooking = (event: PluginEventName) => plugins.filter((plugin) => plugin.hooks?.[event] !== undefined);
  // The delay applies when delivering, not when enqueueing: a server restarted without it
  // delivers what an earlier run held back.
  const heldBack = (now: Date) => new Date(now.getTime() - settings.delaySeconds * 1000);
  const stopping = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let platformForHooks: PlatformServices | undefined;
  let recovering: Promise<void> | undefined;

  async function deliver(platform: PlatformServices, row: PluginEventRecord) {
    const plugin = byName.get(row.plugin) as Plugin;
    const hook = plugin.hooks?.[row.event as PluginEventName] as
      | ((event: unknown, context: PluginContext) => Promise<void>)
      | undefined;
    const attempt = row.attempts + 1;
    const log = { plugin: row.plugin, event: row.event, eventId: row.id, attempt };
    if (!hook) {
      // The plugin no longer hooks the event (a new version): nothing to deliver to.
      await storage.pluginEvents.remove(row.id);
      return;
    }
    const timeout = AbortSignal.timeout(hookRetry.timeoutSeconds * 1000);
    // The event's own account, never another: the context is built from the row alone.
    const context = createPluginContext(platform, {
      plugin: row.plugin,
      accountId: row.accountId,
      requestId: `event-${row.id}`,
      signal: AbortSignal.any([stopping.signal, timeout]),
    });
    const timedOut = new Promise<never>((_resolve, reject) =>
      timeout.addEventListener("abort", () =>
        reject(new Error(`the hook did not return within ${hookRetry.timeoutSeconds} s`)),
      ),
    );
    try {
      await Promise.race([hook(JSON.parse(row.payload), context), timedOut]);
      await storage.pluginEvents.remove(row.id);
      logger.info(log, "plugin hook delivered");
    } catch (error) {
      if (attempt >= hookRetry.attempts) {
        await storage.pluginEvents.remove(row.id);
        logger.error({ ...log, err: error }, "plugin hook failed for the last time; event dropped");
        return;
      }
      const delaySeconds = Math.min(hookRetry.firstSeconds * 2 ** (attempt - 1), hookRetry.maxSeconds);
      const dueAt = new Date(clock.now().getTime() + delaySeconds * 1000);
      await storage.pluginEvents.reschedule(row.id, attempt, dueAt, describeError(error));
      logger.warn({ ...log, err: error, retryInSeconds: delaySeconds }, "plugin hook failed; will retry");
    }
  }

  async function deliverDue(platform: PlatformServices) {
    const names = [...byName.keys()];
    await storage.runExclusive("plugin-events", async () => {
      for (;;) {
        if (stopping.signal.aborted) return;
        const rows = await storage.pluginEvents.due(heldBack(clock.now()), names, batchSize);
        for (const row of rows) {
          if (stopping.signal.aborted) return;
          await deliver(platform, row);
        }
        if (rows.length < batchSize) return;
      }
    });
  }

  /** Runs a delivery pass now (or right after the one in flight), then sleeps until the next row is due. */
  function schedule(platform: PlatformServices) {
    if (stopping.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      try {
        await deliverDue(platform);
      } catch (error) {
        logger.error({ err: error }, "plugin event delivery failed");
      }
      let wait = idlePollMilliseconds;
      try {
        const next = await storage.pluginEvents.nextDue([...byName.keys()]);
        if (next) wait = Math.min(wait, Math.max(0, next.getTime() - heldBack(clock.now()).getTime()));
      } catch (error) {
        logger.error({ err: error }, "plugin event queue unreadable");
      }
      running = undefined;
      if (stopping.signal.aborted) return;
      if (again) {
        again = false;
        wait = 0;
      }
      timer = setTimeout(() => schedule(platform), wait);
      (timer as { unref?: () => void }).unref?.();
    })();
  }

  async function sandboxEnded(id: string, reason: "destroyed" | "expired", at: Date) {
    const session = await storage.sandboxSessions.getById(id);
    if (!session) return;
    const activity = await storage.sandboxActivity.list(id);
    const payload: SandboxDestroyedEvent = {
      sandbox_id: session.id,
      account_id: session.accountId,
      reason,
      created_at: session.createdAt.toISOString(),
      ended_at: at.toISOString(),
      commands: activity.flatMap((entry) =>
        entry.kind === "command"
          ? [
              {
                command: entry.command,
                exit_code: entry.exitCode,
                timed_out: entry.timedOut,
                at: entry.at.toISOString(),
              },
            ]
          : [],
      ),
      // The event's files are those the file tools touched, as it has always said.
      files: activity.flatMap((entry) =>
        entry.kind === "file" &&
        (entry.operation === "create" || entry.operation === "edit" || entry.operation === "view")
          ? [{ path: entry.path, operation: entry.operation, at: entry.at.toISOString() }]
          : [],
      ),
    };
    await host.emit("sandbox.destroyed", session.accountId, payload);
    // Only once the event holds them: a crash before this re-emits at the next start (at least
    // once), never loses them.
    await storage.sandboxActivity.clear(id);
    await storage.sandboxSessions.endAnnounced(id);
  }

  /** Events whose session ended (with the promise in the same write) but a crash kept from the queue. */
  async function announceUnannounced() {
    for (const session of await storage.sandboxSessions.unannouncedEnds()) {
      await sandboxEnded(
        session.id,
        session.endedReason ?? "destroyed",
        session.destroyedAt ?? session.expiresAt,
      );
    }
  }

  /** Queues the events for every plugin that hooks them; resolves once the rows are committed. */
  async function enqueue<Event extends PluginEventName>(
    event: Event,
    accountId: string,
    payloads: readonly PluginEvents[Event][],
  ) {
    const targets = hooking(event);
    if (targets.length === 0 || payloads.length === 0) return;
    const now = clock.now();
    await storage.pluginEvents.enqueue(
      payloads.flatMap((payload) => {
        const text = JSON.stringify(payload);
        return targets.map((plugin) => ({
          id: crypto.randomUUID(),
          plugin: plugin.name,
          event,
          accountId,
          payload: text,
          attempts: 0,
          dueAt: now,
          createdAt: now,
        }));
      }),
    );
    if (platformForHooks) schedule(platformForHooks);
  }

  const host: PluginHost = {
    plugins,
    subscribes: (event) => hooking(event).length > 0,
    emit: (event, accountId, payload) => enqueue(event, accountId, [payload]),
    remembered: (accountId, memories) =>
      enqueue(
        "memory.remembered",
        accountId,
        memories.map((memory) => ({
          account_id: accountId,
          memory_id: memory.id,
          scope: memory.scope,
          kind: memory.kind,
          content: memory.content,
          source_session_id: memory.sourceSessionId,
          created_at: memory.createdAt.toISOString(),
        })),
      ),
    // Every sandbox's feed (docs/sandboxes.md#activity), which `sandbox.destroyed` also carries.
    async recordActivity(sessionId, activity) {
      const detail =
        activity.detail == null
          ? activity.detail
          : cut(activity.detail, sandboxActivityLimits.pathCharacters);
      const bounded: SandboxActivity =
        activity.kind === "command"
          ? { ...activity, detail, command: cut(activity.command, sandboxActivityLimits.commandCharacters) }
          : activity.kind === "file"
            ? { ...activity, detail, path: cut(activity.path, sandboxActivityLimits.pathCharacters) }
            : {
                ...activity,
                detail,
                subject: cut(activity.subject, sandboxActivityLimits.commandCharacters),
              };
      const keep =
        activity.kind === "command"
          ? sandboxActivityLimits.commands
          : activity.kind === "file"
            ? sandboxActivityLimits.files
            : sandboxActivityLimits.others;
      try {
        await storage.sandboxActivity.record(sessionId, bounded, keep);
      } catch (error) {
        logger.warn({ err: error, sessionId }, "sandbox activity not recorded");
      }
    },
    emittingOnEnd(sessions) {
      return {
        ...sessions,
        async end(id, reason, at) {
          // The end and the promise of its event are one write; the event follows it.
          const announce = host.subscribes("sandbox.destroyed");
          const ended = await sessions.end(id, reason, at, announce);
          if (ended && announce) await sandboxEnded(id, reason, at);
          return ended;
        },
      };
    },
    start(platform) {
      if (plugins.every((plugin) => Object.keys(plugin.hooks ?? {}).length === 0)) return;
      platformForHooks = platform;
      recovering = (host.subscribes("sandbox.destroyed") ? announceUnannounced() : Promise.resolve())
        .catch((error: unknown) =>
          logger.error({ err: error }, "unqueued sandbox.destroyed events not recovered"),
        )
        .finally(() => schedule(platform));
    },
    async close() {
      stopping.abort();
      await recovering;
      clearTimeout(timer);
      await running;
    },
  };
  return host;
}
