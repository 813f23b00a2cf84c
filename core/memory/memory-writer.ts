/**
 * The memory write path (docs/memory.md#writes): remembers of one account arriving together are
 * committed together, and relation detection runs just after, from the durable queue the
 * writes filled in their own transaction.
 *
 * - `remember` answers once its memory and index entries are committed. Remembers of an account
 *   that arrive while its previous commit is in flight wait for it and then share one
 *   transaction (one statement per table for all of them); if that transaction fails, each is
 *   retried alone, so one bad write never fails the others.
 * - The linker takes the queued jobs a chunk at a time, in the order they were written, and
 *   links each chunk in one transaction with the deletion of its jobs: a crash leaves them
 *   queued, and `linkAll` (at start) finishes them.
 * - `settle(account)` links the account's queued writes before a read, so a client always reads
 *   its own writes with their relations and supersessions, and before a write, so each write is
 *   linked against the memories as they stood when it was written (a later write never changes
 *   what an earlier one links to): the same relations whatever the timing, on both databases.
 */
import type { Logger } from "../ports/logger.ts";
import type { LinkJob, MemoryRecord, MemoryStore } from "../ports/memory-store.ts";
import {
  linkQueued,
  type MemoryInput,
  type PreparedMemory,
  prepareMemories,
  writeMemories,
} from "./write-memory.ts";

/** Most remembers committed in one transaction. */
const maxGroup = 256;
/** Link jobs per linker transaction (an import batch is never split). */
const jobsPerLink = 500;
/**
 * The linker starts this long after the write that woke it: jobs queued meanwhile are linked
 * together (one read of the recent rows per scope for all of them), not one transaction each.
 */
const linkDelayMs = 20;

export interface MemoryWriter {
  /** Writes one memory (lifting the tombstone of `identity`); resolves with the stored row. */
  remember(accountId: string, input: MemoryInput, identity: string, now: Date): Promise<MemoryRecord>;
  /** Tells the linker a transaction queued link jobs. */
  written(): void;
  /** Links the account's queued writes. */
  settle(accountId: string): Promise<void>;
  /** Links every queued write (left by a previous run). */
  linkAll(): Promise<void>;
  /** Waits for the writes and links in progress; links no more. */
  close(): Promise<void>;
}

interface PendingRemember {
  memory: PreparedMemory;
  identity: string;
  now: Date;
  resolve(record: MemoryRecord): void;
  reject(error: unknown): void;
}

// The next turn of the event loop, after the I/O already waiting: requests that arrived together
// are all queued before their group is written.
const nextTurn: (run: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (run) => globalThis.setImmediate(run)
    : (run) => setTimeout(run, 0);

export function createMemoryWriter(settings: {
  memories: MemoryStore;
  logger: Logger;
  /** Called after every committed write (semantic search's embedder wakes on it). */
  afterWrite?: () => void;
  /**
   * Called with queued writes before they are linked and leave the queue (the plugin host queues
   * `memory.remembered` from it): a crash before the link commits calls it again for them after
   * the restart, so what it does happens at least once for every committed write.
   */
  beforeLink?: (accountId: string, jobs: LinkJob[]) => Promise<void>;
}): MemoryWriter {
  const { memories, logger } = settings;
  const waiting = new Map<string, PendingRemember[]>();
  const writing = new Set<Promise<void>>();
  // One link run per account at a time; the background sweep and `settle` share it.
  const linking = new Map<string, Promise<number>>();
  let sweep: Promise<void> | null = null;
  let sweepAgain = false;
  let closed = false;

  async function writeGroup(accountId: string, group: PendingRemember[]): Promise<void> {
    try {
      const records = await memories.transaction(async (store) => {
        // Each write keeps its own time; the group shares one statement per table.
        const ids = await writeMemories(
          store,
          accountId,
          group.map((pending) => pending.memory),
          group.reduce((latest, pending) => (pending.now > latest ? pending.now : latest), group[0].now),
        );
        await store.clearTombstones(
          accountId,
          group.map((pending) => pending.identity),
        );
        const rows = new Map((await store.getAnyMany(accountId, ids)).map((row) => [row.id, row]));
        return ids.map((id) => rows.get(id));
      });
      for (const [index, pending] of group.entries()) {
        const record = records[index];
        if (record) pending.resolve(record);
        else pending.reject(new Error("memory vanished while being written"));
      }
      written();
    } catch (error) {
      if (group.length === 1) {
        group[0].reject(error);
        return;
      }
      for (const pending of group) await writeGroup(accountId, [pending]);
    }
  }

  function flush(accountId: string): void {
    const run = (async () => {
      for (;;) {
        const queue = waiting.get(accountId) as PendingRemember[];
        if (queue.length === 0) break;
        // Earlier writes are linked first, so linking sees each write as it was written.
        await settle(accountId).catch((error: unknown) =>
          logger.error({ err: error }, "memory linking failed; writing anyway"),
        );
        await writeGroup(accountId, queue.splice(0, maxGroup));
      }
      waiting.delete(accountId);
    })();
    writing.add(run);
    void run.finally(() => writing.delete(run));
  }

  /** Links one chunk of the account's queue; returns how many jobs it linked. */
  function linkChunk(accountId: string): Promise<number> {
    const previous = linking.get(accountId) ?? Promise.resolve(0);
    const run = previous
      .catch(() => 0)
      .then(async () => {
        // Nearly every read finds nothing queued: one indexed read, not a transaction (on
        // PostgreSQL that would take the account's lock and queue the reads behind each other).
        const { beforeLink } = settings;
        const queued = await memories.linkJobs(accountId, beforeLink ? jobsPerLink : 1);
        if (queued.length === 0) return 0;
        await beforeLink?.(accountId, queued);
        // Only jobs `beforeLink` saw leave the queue (a write may have queued more since).
        const seen = beforeLink ? (queued.at(-1) as LinkJob).seq : Number.POSITIVE_INFINITY;
        const linked = await memories.transaction(async (store) => {
          const jobs = (await store.linkJobs(accountId, jobsPerLink)).filter((job) => job.seq <= seen);
          await linkQueued(store, accountId, jobs);
          await store.completeLinks(
            accountId,
            jobs.map((job) => job.seq),
          );
          return jobs.length;
        });
        // Jobs another replica linked meanwhile count too: `settle` reads the queue again.
        return Math.max(linked, beforeLink ? queued.length : 0);
      });
    linking.set(accountId, run);
    void run
      .finally(() => {
        if (linking.get(accountId) === run) linking.delete(accountId);
      })
      .catch(() => {});
    return run;
  }

  async function settle(accountId: string): Promise<void> {
    while ((await linkChunk(accountId)) > 0) {}
  }

  /** Links queued writes of every account, a chunk per turn of the event loop. */
  function written(): void {
    if (closed) return;
    settings.afterWrite?.();
    if (sweep !== null) {
      sweepAgain = true;
      return;
    }
    sweep = (async () => {
      await new Promise<void>((resolve) => setTimeout(resolve, linkDelayMs));
      do {
        sweepAgain = false;
        for (;;) {
          await new Promise<void>((resolve) => nextTurn(resolve));
          if (closed) return;
          const accounts = await memories.linkAccounts(16);
          if (accounts.length === 0) break;
          for (const accountId of accounts) await linkChunk(accountId);
        }
      } while (sweepAgain && !closed);
    })()
      .catch((error: unknown) =>
        logger.error({ err: error }, "memory linking failed; retrying at the next write"),
      )
      .finally(() => {
        sweep = null;
      });
  }

  return {
    async remember(accountId, input, identity, now) {
      // Hashed before queueing: no transaction waits for a digest.
      const [memory] = await prepareMemories([input], now);
      return new Promise<MemoryRecord>((resolve, reject) => {
        if (closed) {
          reject(new Error("the memory writer is closed"));
          return;
        }
        const pending = { memory, identity, now, resolve, reject };
        const queue = waiting.get(accountId);
        if (queue) {
          queue.push(pending);
          return;
        }
        // The first remember of a quiet account waits one turn for the others arriving with it.
        waiting.set(accountId, [pending]);
        nextTurn(() => flush(accountId));
      });
    },
    written,
    settle,
    async linkAll() {
      for (;;) {
        const accounts = await memories.linkAccounts(16);
        if (accounts.length === 0) return;
        for (const accountId of accounts) await settle(accountId);
      }
    },
    async close() {
      closed = true;
      await Promise.allSettled([...writing, ...linking.values(), sweep ?? Promise.resolve()]);
    },
  };
}
