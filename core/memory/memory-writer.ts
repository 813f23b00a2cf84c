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
 *   queued, and `linkAll` (at start) finishes them. A chunk of more than a few jobs has its
 *   relations worked out before that transaction, in slices that take turns with other requests
 *   (link-writes.ts), and written if the account's memories are as it read them, else worked
 *   out again inside it.
 * - An account's write transactions (its imports, ingests, remember groups, link runs) run one
 *   at a time (`exclusive`): eight concurrent imports of one account queue here, behind each
 *   other, and not at the database, where every other account's writes would wait behind all
 *   eight (SQLite has one writer; PostgreSQL's pool has ten connections).
 * - `settle(account)` links the account's queued writes before a read, so a client always reads
 *   its own writes with their relations and supersessions, and before a write, so each write is
 *   linked against the memories as they stood when it was written (a later write never changes
 *   what an earlier one links to): the same relations whatever the timing, on both databases.
 * - Access counts (what search shows, never ranks on) are added up here and written for many
 *   searches at once, `accessWriteMs` after the first, or before the account's next read or
 *   write other than a search: a read sees every access counted here. A search shows its rows'
 *   stored counts plus those not written yet (a write under way counts as not written until it
 *   commits); no timed write starts while it runs, and one that commits meanwhile makes it run
 *   again, so the sum is exact (unless searches of the account never pause for `accessWaitMs`).
 *   Another replica sees the counts once written; a crash loses at most the last
 *   `accessWriteMs` of them.
 */
import type { Logger } from "../ports/logger.ts";
import type { AccessCount, LinkJob, MemoryRecord, MemoryStore } from "../ports/memory-store.ts";
import type { RelationDetection } from "../ports/relation-detection.ts";
import { applyLinks, linkQueued, planLinks } from "./link-writes.ts";
import { type MemoryInput, type PreparedMemory, prepareMemories, writeMemories } from "./write-memory.ts";

/** Most remembers committed in one transaction. */
const maxGroup = 256;
/**
 * Text in a group past which its transaction is large (MemoryStore.transaction): a remember of
 * 64 KiB posts thousands of terms, tens of milliseconds of SQLite's work.
 */
const largeGroupCharacters = 16_384;
/** Link jobs per linker transaction (an import batch is never split). */
const jobsPerLink = 500;
/**
 * Up to this many jobs, a chunk is linked inside its transaction: a few writes' comparisons take
 * little, and working them out beforehand cost a tenth of the remembers per second (two more
 * reads per group). A larger chunk (an import, a backlog) is worked out before it.
 */
const linkInsideUpTo = 16;
/**
 * The linker starts this long after the write that woke it: jobs queued meanwhile are linked
 * together (one read of the recent rows per scope for all of them), not one transaction each.
 */
const linkDelayMs = 20;
/** Access counts are written this long after the first of them. */
const accessWriteMs = 250;
/** ...or, while searches of the account keep running, at the latest this long after it. */
const accessWaitMs = 5_000;
/** After a failed write (the database away, a full disk), the next attempt waits this long. */
const accessRetryMs = 5_000;
/** A search runs again when an access write committed while it ran; at most this many times. */
const maxSearchRuns = 3;

export interface MemoryWriter {
  /** Writes one memory (lifting the tombstone of `identity`); resolves with the stored row. */
  remember(accountId: string, input: MemoryInput, identity: string, now: Date): Promise<MemoryRecord>;
  /**
   * Runs `write` (a memory write transaction of the account) after the account's earlier ones have
   * finished; other accounts' writes do not wait for it.
   */
  exclusive<T>(accountId: string, write: () => Promise<T>): Promise<T>;
  /**
   * Tells the linker a transaction queued link jobs for the account, and wrote `memoryIds` (with
   * the memories whose vectors it dropped: `writeMemories`'s `unembedded`).
   */
  written(accountId: string, memoryIds: readonly string[]): void;
  /**
   * Whether writes of the account committed here may still wait to be linked: a search then links
   * them before it starts, instead of finding them queued in its first read. Never false while
   * such a write waits; true at worst once too often (a settle that finds nothing to link).
   */
  linkPending(accountId: string): boolean;
  /**
   * Tells the storage a forget committed (SQLite then empties its log soon: docs/memory.md#forget),
   * with the rows whose vectors it dropped (the forgotten row was their context), to embed again.
   */
  forgotten(unembedded?: readonly string[]): void;
  /**
   * Counts one access of each row at `now` (written shortly); answers each row's accesses not
   * written yet, this one included.
   */
  accessed(accountId: string, ids: readonly string[], now: Date): ReadonlyMap<string, number>;
  /**
   * Runs `search`, a search of the account, with its access counts held still: no timed write of
   * them starts meanwhile, so the stored counts it reads plus `accessed`'s are exact.
   */
  searching<T>(accountId: string, search: () => Promise<T>): Promise<T>;
  /** Links the account's queued writes and writes its access counts (unless `accesses` is false). */
  settle(accountId: string, options?: { accesses?: boolean }): Promise<void>;
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
  /** Called after every committed write with the rows written (semantic search's embedder wakes on it). */
  afterWrite?: (memoryIds: readonly string[]) => void;
  /** Called after every committed forget, with the rows whose vectors it dropped (`forgotten`). */
  afterForget?: (unembedded: readonly string[]) => void;
  /**
   * Called with queued writes before they are linked and leave the queue (the plugin host queues
   * `memory.remembered` from it): a crash before the link commits calls it again for them after
   * the restart, so what it does happens at least once for every committed write.
   */
  beforeLink?: (accountId: string, jobs: LinkJob[]) => Promise<void>;
  /** Called after a link run committed, with the number of writes it linked. */
  afterLink?: (linked: number) => void;
  /**
   * The store commits on this thread (SQLite): a read that starts once a commit call returned
   * sees it, and none sees it earlier, so a search need not wait for an access write under way.
   */
  commitsInProcess?: boolean;
  /**
   * Where relation detection compares the texts of chunks worked out before their transaction (an
   * import, a backlog); in slices on this thread if not given, as always for the few writes a
   * chunk linked inside its transaction holds.
   */
  relationDetection?: RelationDetection;
}): MemoryWriter {
  const { memories, logger, relationDetection } = settings;
  const waiting = new Map<string, PendingRemember[]>();
  // Each account's last write transaction, queued or running (`exclusive`).
  const lanes = new Map<string, Promise<unknown>>();
  function exclusive<T>(accountId: string, write: () => Promise<T>): Promise<T> {
    const previous = lanes.get(accountId) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(write);
    lanes.set(accountId, run);
    void run
      .finally(() => {
        if (lanes.get(accountId) === run) lanes.delete(accountId);
      })
      .catch(() => {});
    return run;
  }
  const writing = new Set<Promise<void>>();
  // One link run per account at a time; the background sweep and `settle` share it.
  const linking = new Map<string, Promise<boolean>>();
  let sweep: Promise<void> | null = null;
  let sweepAgain = false;
  let closed = false;
  // Access counts per account not written yet, and the writes in flight.
  const unwrittenAccesses = new Map<string, Map<string, AccessCount>>();
  const accessWrites = new Map<string, Promise<void>>();
  // Access writes committed while the account's searches ran, so a search can tell that one did.
  const accessCommits = new Map<string, number>();
  // When each account's oldest unwritten count was taken, and its searches running.
  const accessesSince = new Map<string, number>();
  const searches = new Map<string, number>();
  let accessTimer: ReturnType<typeof setTimeout> | null = null;
  // Accounts with writes committed here that no read of their queue has found empty since, each
  // with a count of those writes: a read that began before the latest write clears nothing.
  const unlinked = new Map<string, number>();
  const linkedUpTo = (accountId: string, writes: number | undefined) => {
    if (writes !== undefined && unlinked.get(accountId) === writes) unlinked.delete(accountId);
  };

  async function writeGroup(accountId: string, group: PendingRemember[]): Promise<void> {
    try {
      const { records, unembedded } = await exclusive(accountId, () =>
        memories.transaction(
          async (store) => {
            // Each write keeps its own time; the group shares one statement per table.
            const { ids, unembedded } = await writeMemories(
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
            return { records: ids.map((id) => rows.get(id)), unembedded };
          },
          {
            large:
              group.reduce((sum, pending) => sum + pending.memory.input.content.length, 0) >
              largeGroupCharacters,
          },
        ),
      );
      for (const [index, pending] of group.entries()) {
        const record = records[index];
        if (record) pending.resolve(record);
        else pending.reject(new Error("memory vanished while being written"));
      }
      written(accountId, [...records.flatMap((record) => (record ? [record.id] : [])), ...unembedded]);
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

  /**
   * Links one chunk of the account's queue; answers whether jobs may be left: false once a read
   * of the queue, made after this call, found no more than the chunk linked.
   */
  function linkChunk(accountId: string): Promise<boolean> {
    const previous = linking.get(accountId) ?? Promise.resolve(false);
    const run = previous
      .catch(() => false)
      .then(async () => {
        // Nearly every read finds nothing queued: one indexed read, not a transaction (on
        // PostgreSQL that would take the account's lock and queue the reads behind each other).
        const { beforeLink } = settings;
        const writes = unlinked.get(accountId);
        const queued = await memories.linkJobs(accountId, jobsPerLink);
        if (queued.length === 0) {
          linkedUpTo(accountId, writes);
          return false;
        }
        await beforeLink?.(accountId, queued);
        // Only the jobs read here (and shown to `beforeLink`) leave the queue in this chunk; a
        // write may have queued more since.
        const seen = (queued.at(-1) as LinkJob).seq;
        const { left, linked } = await exclusive(accountId, async () => {
          // A large chunk is worked out first, holding no transaction (seconds for an import),
          // from the memories as of `version`.
          const outside = queued.length > linkInsideUpTo;
          const version = outside ? await memories.version(accountId) : 0;
          const plan = outside ? await planLinks(memories, accountId, queued, relationDetection) : null;
          return memories.transaction(
            async (store) => {
              const read = await store.linkJobs(accountId, jobsPerLink);
              const jobs = read.filter((job) => job.seq <= seen);
              const unchanged =
                plan !== null &&
                jobs.length === queued.length &&
                jobs.every((job, index) => job.seq === queued[index].seq) &&
                (await store.version(accountId)) === version;
              // Another replica's write or link, or a forget, came in between: worked out again here.
              if (unchanged) await applyLinks(store, accountId, plan);
              // Inside the transaction the comparisons run here, in slices: a transaction (SQLite's
              // one writer) never waits for the relation thread, which another account's import
              // may keep busy at its lower priority.
              else await linkQueued(store, accountId, jobs);
              await store.completeLinks(
                accountId,
                jobs.map((job) => job.seq),
              );
              // A full chunk, or jobs queued after the ones read above, may not be all.
              return { left: read.length === jobsPerLink || jobs.length < read.length, linked: jobs.length };
            },
            { large: outside },
          );
        });
        settings.afterLink?.(linked);
        if (!left) linkedUpTo(accountId, writes);
        return left;
      });
    linking.set(accountId, run);
    void run
      .finally(() => {
        if (linking.get(accountId) === run) linking.delete(accountId);
      })
      .catch(() => {});
    return run;
  }

  function writeAccesses(accountId: string): Promise<void> {
    const previous = accessWrites.get(accountId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const rows = unwrittenAccesses.get(accountId);
      if (rows === undefined) return;
      // The rows stay counted as unwritten until the write commits: a search meanwhile (which
      // reads the stored counts from before it) adds them.
      const written = [...rows.values()].map((row) => ({ ...row }));
      accessesSince.delete(accountId);
      try {
        await memories.recordAccess(accountId, written);
      } catch (error) {
        // Kept for the next attempt (with the accesses counted meanwhile).
        logger.warn({ err: error }, "access counts not written; retrying");
        if (!accessesSince.has(accountId)) accessesSince.set(accountId, Date.now());
        scheduleAccesses(accessRetryMs);
        return;
      }
      for (const { id, count } of written) {
        const row = rows.get(id);
        if (row === undefined) continue;
        row.count -= count;
        if (row.count <= 0) rows.delete(id);
      }
      if (rows.size === 0 && unwrittenAccesses.get(accountId) === rows) unwrittenAccesses.delete(accountId);
      // Told to the account's searches running now (none: nothing to tell, nothing kept).
      if (searches.has(accountId)) accessCommits.set(accountId, (accessCommits.get(accountId) ?? 0) + 1);
    });
    accessWrites.set(accountId, run);
    void run.finally(() => {
      if (accessWrites.get(accountId) === run) accessWrites.delete(accountId);
    });
    return run;
  }

  function scheduleAccesses(delay = accessWriteMs): void {
    if (accessTimer !== null || closed) return;
    accessTimer = setTimeout(() => {
      accessTimer = null;
      for (const accountId of [...unwrittenAccesses.keys()]) {
        const waited = Date.now() - (accessesSince.get(accountId) ?? 0);
        if (searches.has(accountId) && waited < accessWaitMs) scheduleAccesses();
        else void writeAccesses(accountId);
      }
    }, delay);
    (accessTimer as { unref?: () => void }).unref?.();
  }

  async function settle(accountId: string, options: { accesses?: boolean } = {}): Promise<void> {
    if (options.accesses !== false && (unwrittenAccesses.has(accountId) || accessWrites.has(accountId)))
      await writeAccesses(accountId);
    // Until a read of the queue made after this call began finds nothing left: every write
    // committed before it is then linked (the chunk that linked the last of them says so, without
    // a read just to find the queue empty).
    while (await linkChunk(accountId)) {}
  }

  /** Links queued writes of every account, a chunk per turn of the event loop. */
  function written(accountId: string, memoryIds: readonly string[]): void {
    unlinked.set(accountId, (unlinked.get(accountId) ?? 0) + 1);
    if (closed) return;
    settings.afterWrite?.(memoryIds);
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
          const writes = new Map(unlinked);
          const accounts = await memories.linkAccounts(16);
          if (accounts.length === 0) {
            for (const [accountId, count] of writes) linkedUpTo(accountId, count);
            break;
          }
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
    exclusive,
    written,
    linkPending: (accountId) => unlinked.has(accountId),
    forgotten(unembedded = []) {
      settings.afterForget?.(unembedded);
    },
    accessed(accountId, ids, now) {
      let rows = unwrittenAccesses.get(accountId);
      if (rows === undefined) {
        rows = new Map();
        unwrittenAccesses.set(accountId, rows);
      }
      if (!accessesSince.has(accountId)) accessesSince.set(accountId, Date.now());
      const counts = new Map<string, number>();
      for (const id of ids) {
        const row = rows.get(id) ?? { id, count: 0, at: now };
        row.count++;
        if (now > row.at) row.at = now;
        rows.set(id, row);
        counts.set(id, row.count);
      }
      scheduleAccesses();
      return counts;
    },
    async searching(accountId, search) {
      // PostgreSQL: a write already under way is waited for, then the search reads what it wrote
      // (the search's own connection may see its commit before this process hears of it).
      // SQLite commits here: a write under way is not waited for (behind another account's
      // import it waits seconds for the connection), and its rows count as unwritten until then.
      if (!settings.commitsInProcess) await accessWrites.get(accountId);
      searches.set(accountId, (searches.get(accountId) ?? 0) + 1);
      try {
        for (let attempt = 1; ; attempt++) {
          const commits = accessCommits.get(accountId) ?? 0;
          const result = await search();
          // PostgreSQL: a write that began meanwhile (before another read of the account) may
          // be in what the search read before this process hears of its commit: waited for.
          if (!settings.commitsInProcess) await accessWrites.get(accountId);
          // A write that committed while it ran may or may not be in what it read: it runs again.
          if ((accessCommits.get(accountId) ?? 0) === commits || attempt === maxSearchRuns) return result;
        }
      } finally {
        const left = (searches.get(accountId) ?? 1) - 1;
        if (left > 0) searches.set(accountId, left);
        else {
          searches.delete(accountId);
          accessCommits.delete(accountId);
        }
      }
    },
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
      if (accessTimer !== null) clearTimeout(accessTimer);
      accessTimer = null;
      await Promise.allSettled([...unwrittenAccesses.keys()].map(writeAccesses));
      await Promise.allSettled([...writing, ...linking.values(), sweep ?? Promise.resolve()]);
    },
  };
}
