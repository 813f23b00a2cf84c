/**
 * Writing memories (docs/memory.md#remember-and-upsert and #relations): the batched upsert that
 * remember, ingest and import share, and the relation and supersession detection the linker
 * runs on what they queued.
 */

import { LRUCache } from "lru-cache";
import { sha256Hex } from "../auth/api-keys.ts";
import type {
  LinkCandidate,
  LinkJob,
  MemoryKind,
  MemoryRecord,
  MemoryStore,
  MemoryWrite,
  RelationRecord,
} from "../ports/memory-store.ts";
import { unionDates } from "./dates.ts";
import { detectProfileRelation, type RelationProfile, relationProfile } from "./relations.ts";

export interface MemoryInput {
  content: string;
  scope: string;
  kind: MemoryKind;
  metadata: Record<string, unknown>;
  sourceSessionId: string | null;
  expiresAt: Date | null;
  sourceContent: string | null;
  documentDate: Date | null;
  eventDates: string[];
  importance: number;
  /** Its `contentHashOf`, when the caller already has it (for the identity digest). */
  contentHash?: string;
  /** Import only: timestamps carried over from an export. */
  createdAt?: Date;
  updatedAt?: Date;
}

/** A keyed one-way digest of a memory's identity, for tombstones: no content is recoverable, and without the server key a guessed sentence cannot be checked against it. */
export async function identityDigest(
  keyed: { digest(text: string): Promise<string> },
  scope: string,
  kind: MemoryKind,
  contentHash: string,
): Promise<string> {
  return keyed.digest(`${scope}\n${kind}\n${contentHash}`);
}

/** The SHA-256 (hex) of a memory's content: its row's hash and the root of its identity digest. */
export const contentHashOf = (content: string): Promise<string> => sha256Hex(content);

// Relation detection compares a row with this many most recently updated rows written before it.
export const relationWindow = 100;

// Relation profiles of recently seen contents: each row is compared with the same window of
// recent rows, so their analysis is reused instead of redone per pair. Keyed by content (the
// profile is a pure function of it), bounded by bytes (about two per character, for the key and
// the token set), the least recently used leaving first.
const profileCache = new LRUCache<string, RelationProfile>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (profile, content) => Math.max(1, 4 * content.length + 64 * profile.tokens.size),
});

function profileOf(content: string): RelationProfile {
  let profile = profileCache.get(content);
  if (profile === undefined) {
    profile = relationProfile(content);
    profileCache.set(content, profile);
  }
  return profile;
}

/** A memory ready to write: its row, content hash included (hashed before any transaction). */
export interface PreparedMemory {
  input: MemoryInput;
  write: MemoryWrite;
}

export async function prepareMemories(inputs: MemoryInput[], now: Date): Promise<PreparedMemory[]> {
  return Promise.all(
    inputs.map(async (input) => ({
      input,
      write: {
        scope: input.scope,
        kind: input.kind,
        content: input.content,
        contentHash: input.contentHash ?? (await contentHashOf(input.content)),
        metadata: input.metadata,
        sourceSessionId: input.sourceSessionId,
        sourceContent: input.sourceContent,
        documentDate: input.documentDate,
        eventDates: input.eventDates,
        importance: input.importance,
        expiresAt: input.expiresAt,
        createdAt: input.createdAt ?? now,
        updatedAt: input.updatedAt ?? now,
      },
    })),
  );
}

/**
 * Writes memories in order in the caller's transaction: new rows and their index entries in one
 * statement per table, a row whose identity exists merged into it (same id), and one link job
 * per row for relation detection (`linkQueued`, run by the linker just after). Returns the ids
 * in input order. `batchId` marks an import: its rows are linked to older rows, not to each other.
 */
export async function writeMemories(
  store: MemoryStore,
  accountId: string,
  memories: PreparedMemory[],
  now: Date,
  batchId: string | null = null,
): Promise<string[]> {
  const results = await store.insertMany(
    accountId,
    memories.map((memory) => memory.write),
  );
  for (const [index, { id, inserted }] of results.entries()) {
    if (!inserted) await mergeInto(store, accountId, id, memories[index], now);
  }
  const ids = results.map((result) => result.id);
  await store.enqueueLinks(
    accountId,
    results.map(({ id, inserted }) => ({ memoryId: id, batchId, inserted })),
    now,
  );
  return ids;
}

/** Merges a write into the existing row with its identity key. */
async function mergeInto(
  store: MemoryStore,
  accountId: string,
  id: string,
  { input, write }: PreparedMemory,
  now: Date,
) {
  const existing = await store.getAny(accountId, id);
  if (!existing) return;
  await store.update(accountId, id, {
    ...write,
    sourceContent: input.sourceContent ?? existing.sourceContent,
    documentDate: input.documentDate ?? existing.documentDate,
    eventDates: unionDates([existing.eventDates, input.eventDates]),
    importance: Math.max(existing.importance, input.importance),
    updatedAt: input.updatedAt && input.updatedAt > existing.updatedAt ? input.updatedAt : now,
    // Stating a memory again makes it current again, even after something superseded it
    // (otherwise "blue" → "green" → "blue" would leave no current favorite color at all).
    supersededAt: null,
    supersededById: null,
  });
}

/**
 * Relation detection for queued writes, in the order they were written, each as of the moment it
 * was written: a row is compared with the most recently updated rows of its scope that were live
 * then and inserted before it (rows of its own import batch aside), edges are stored, and an
 * "updates" edge supersedes its target. The result does not depend on how the jobs are chunked.
 */
export async function linkQueued(store: MemoryStore, accountId: string, jobs: LinkJob[]) {
  if (jobs.length === 0) return;
  const rows = new Map(
    (await store.getAnyMany(accountId, [...new Set(jobs.map((job) => job.memoryId))])).map((row) => [
      row.id,
      row,
    ]),
  );
  // Rows these jobs insert; `recent` itself leaves out rows inserted by later jobs.
  const insertedBy = new Map<string, LinkJob>();
  for (const job of jobs) if (job.inserted) insertedBy.set(job.memoryId, job);
  // The import batches that wrote each row, inserting it or merging into it (a re-import).
  const batchesOf = new Map<string, Set<string>>();
  for (const job of jobs)
    if (job.batchId !== null)
      batchesOf.set(job.memoryId, (batchesOf.get(job.memoryId) ?? new Set()).add(job.batchId));
  // Each row's last write in this run: a row stated again after a job's write was current again
  // then (stating a memory again makes it current), so that job does not supersede it.
  const lastWrite = new Map<string, number>();
  for (const job of jobs) lastWrite.set(job.memoryId, job.seq); // jobs come in seq order
  const linkedThrough = (jobs.at(-1) as LinkJob).seq;
  const earliest = jobs.reduce(
    (first, job) => (job.enqueuedAt < first ? job.enqueuedAt : first),
    jobs[0].enqueuedAt,
  );
  const byScope = Map.groupBy(
    jobs.filter((job) => rows.has(job.memoryId)),
    (job) => (rows.get(job.memoryId) as MemoryRecord).scope,
  );
  // Every edge of the run in one call (multi-row statements), after detection: detection never
  // reads edges, so writing them last changes nothing but the number of statements.
  const edges: RelationRecord[] = [];
  // Whether a row was there for a job to link to: live when it was written, not inserted after
  // it, and not written by its own import batch (an import's memories are compared with what the
  // account had, not with each other, also when it re-imports rows the account has).
  const wasThere = (job: LinkJob, other: LinkCandidate) => {
    if (other.expiresAt !== null && other.expiresAt <= job.enqueuedAt) return false;
    if (job.batchId !== null && batchesOf.get(other.id)?.has(job.batchId)) return false;
    const insert = insertedBy.get(other.id);
    return insert === undefined || insert.seq <= job.seq;
  };
  // When every row the run inserted comes from the job's own import batch, none of them was there
  // for it, whatever their order: the rest depends on the write time and the batch alone, so it
  // is worked out once per both instead of once per job (a 500-memory import compared 500 jobs
  // with 600 rows).
  const batches = new Set([...insertedBy.values()].map((job) => job.batchId));
  const soleBatch = batches.size === 1 ? [...batches][0] : undefined;
  const sameForBatch = (job: LinkJob) =>
    insertedBy.size === 0 || (job.batchId !== null && job.batchId === soleBatch);
  // Each scope's candidates, read together: a supersession below only changes rows of its own
  // scope, and the loop keeps those up to date itself.
  const recent = await store.recent(
    accountId,
    new Map(
      [...byScope].map(([scope, scopeJobs]) => [
        scope,
        relationWindow + new Set(scopeJobs.map((job) => job.memoryId)).size,
      ]),
    ),
    earliest,
    linkedThrough,
  );
  for (const [scope, scopeJobs] of byScope) {
    const candidates = recent.get(scope) ?? [];
    const thereAt = new Map<string, LinkCandidate[]>();
    for (const job of scopeJobs) {
      const row = rows.get(job.memoryId) as MemoryRecord;
      const shared = sameForBatch(job);
      const key = `${job.batchId} ${job.enqueuedAt.getTime()}`;
      let there = shared ? thereAt.get(key) : undefined;
      if (there === undefined) {
        there = candidates.filter((other) => wasThere(job, other));
        if (shared) thereAt.set(key, there);
      }
      const older: LinkCandidate[] = [];
      for (const other of there) {
        if (older.length === relationWindow) break;
        if (other.id !== row.id) older.push(other);
      }
      const superseded: LinkCandidate[] = [];
      const profile = profileOf(row.content);
      for (const other of older) {
        const relation = detectProfileRelation(profile, profileOf(other.content));
        if (!relation) continue;
        edges.push({
          sourceMemoryId: row.id,
          targetMemoryId: other.id,
          relationType: relation.type,
          confidence: relation.confidence,
          createdAt: job.enqueuedAt,
        });
        const statedAgainLater = (lastWrite.get(other.id) ?? 0) > job.seq;
        if (relation.type === "updates" && !statedAgainLater && other.supersededAt === null)
          superseded.push(other);
      }
      await store.supersede(
        accountId,
        superseded.map((other) => other.id),
        row.id,
        row.updatedAt,
      );
      // Later jobs of this run see the supersession, as they would have one write later.
      for (const other of superseded) {
        other.supersededAt = row.updatedAt;
        other.supersededById = row.id;
      }
    }
  }
  await store.addRelations(accountId, edges);
}
