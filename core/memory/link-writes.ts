/**
 * Relation detection for queued writes (docs/memory.md#relations), in two steps so the long one
 * holds no transaction: `planLinks` reads the rows and their candidates and has them compared
 * (on a relation thread, or in slices that take turns with other requests:
 * core/ports/relation-detection.ts); `applyLinks` writes the edges and supersessions it found. `linkQueued` does both in the caller's transaction. The
 * linker (memory-writer.ts) plans outside a transaction and applies inside one if the account's
 * memories have not changed meanwhile, so one account's 500-memory import never holds the
 * server's thread, or its SQLite connection, for the seconds the comparison takes.
 */

import type {
  LinkCandidate,
  LinkJob,
  MemoryRecord,
  MemoryStore,
  RelationRecord,
} from "../ports/memory-store.ts";
import type { RelationDetection } from "../ports/relation-detection.ts";
import { createInlineRelationDetection } from "./relation-runs.ts";
import type { DetectedRelation } from "./relations.ts";

// Relation detection compares a row with this many most recently updated rows written before it.
export const relationWindow = 100;

/**
 * Comparisons sent to the detection at once: about a tenth of a second of a relation thread's
 * time for texts of 32 KiB, so runs of several accounts take turns there, and each message
 * carries a few MiB of new texts at most.
 */
const comparisonsPerCall = 1_000;

/** What a link run writes: in job order, each job's supersessions, then every edge. */
export interface LinkPlan {
  supersessions: Array<{ byId: string; targetIds: string[]; at: Date }>;
  edges: RelationRecord[];
}

/**
 * Works out the relations and supersessions of queued writes, in the order they were written, each
 * as of the moment it was written: a row is compared with the most recently updated rows of its
 * scope that were live then and inserted before it (rows of its own import batch aside). Reads
 * through `store` and writes nothing. The result does not depend on how the jobs are chunked.
 */
export async function planLinks(
  store: MemoryStore,
  accountId: string,
  jobs: LinkJob[],
  detection: RelationDetection = createInlineRelationDetection(),
): Promise<LinkPlan> {
  const plan: LinkPlan = { supersessions: [], edges: [] };
  if (jobs.length === 0) return plan;
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
  // Each job's row and the rows it is compared with, in job order within each scope.
  const steps: Array<{ job: LinkJob; row: MemoryRecord; older: LinkCandidate[] }> = [];
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
      steps.push({ job, row, older });
    }
  }
  const relations = await compareSteps(detection, steps);
  let next = 0;
  for (const { job, row, older } of steps) {
    const superseded: LinkCandidate[] = [];
    for (const other of older) {
      const relation = relations[next++];
      if (!relation) continue;
      plan.edges.push({
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
    if (superseded.length > 0)
      plan.supersessions.push({
        byId: row.id,
        targetIds: superseded.map((other) => other.id),
        at: row.updatedAt,
      });
    // Later jobs of this run see the supersession, as they would have one write later.
    for (const other of superseded) {
      other.supersededAt = row.updatedAt;
      other.supersededById = row.id;
    }
  }
  return plan;
}

/**
 * Every step's row compared with each of its older rows, in order, through one detection run:
 * each text is sent once, with the first comparisons that need it (the window every job of an
 * import is compared with is sent and analysed once). Which relations a row has does not depend
 * on supersessions, so the comparisons can all be made before the plan is written.
 */
async function compareSteps(
  detection: RelationDetection,
  steps: ReadonlyArray<{ row: MemoryRecord; older: readonly LinkCandidate[] }>,
): Promise<Array<DetectedRelation | null>> {
  const relations: Array<DetectedRelation | null> = [];
  const run = detection.start();
  try {
    const places = new Map<string, number>();
    let texts: string[] = [];
    let pairs: number[] = [];
    const placeOf = (content: string) => {
      let place = places.get(content);
      if (place === undefined) {
        place = places.size;
        places.set(content, place);
        texts.push(content);
      }
      return place;
    };
    const send = async () => {
      const found = await run.compare(texts, Uint32Array.from(pairs));
      for (const relation of found) relations.push(relation);
      texts = [];
      pairs = [];
    };
    for (const { row, older } of steps) {
      const newer = placeOf(row.content);
      for (const other of older) pairs.push(newer, placeOf(other.content));
      if (pairs.length >= 2 * comparisonsPerCall) await send();
    }
    if (pairs.length > 0) await send();
  } finally {
    run.end();
  }
  return relations;
}

/** Writes a plan in the caller's transaction: the supersessions in job order, then the edges. */
export async function applyLinks(store: MemoryStore, accountId: string, plan: LinkPlan): Promise<void> {
  for (const { byId, targetIds, at } of plan.supersessions)
    await store.supersede(accountId, targetIds, byId, at);
  // Every edge of the run in one call (multi-row statements), after detection: detection never
  // reads edges, so writing them last changes nothing but the number of statements.
  await store.addRelations(accountId, plan.edges);
}

/** Plans and applies the links of queued writes in the caller's transaction. */
export async function linkQueued(
  store: MemoryStore,
  accountId: string,
  jobs: LinkJob[],
  detection?: RelationDetection,
): Promise<void> {
  await applyLinks(store, accountId, await planLinks(store, accountId, jobs, detection));
}
