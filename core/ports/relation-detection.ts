/**
 * Where relation detection compares texts (docs/memory.md#relations). An import's comparisons take
 * seconds of CPU, and their size is the tenant's to choose, so the Node server works them out on
 * a relation thread (platform/relation-thread.ts), off the event loop and at a lower scheduling
 * priority. In process (Deno) they run on the serving thread, in slices that take turns with
 * other requests (`createInlineRelationDetection`, core/memory/relation-runs.ts).
 */
import type { DetectedRelation } from "../memory/relations.ts";

/** The comparisons of one link run. */
export interface RelationRun {
  /**
   * Appends `texts` to the run's table, then compares each pair: `pairs` holds, pair after pair,
   * the place in the table of the newer text and of the older one. Answers in pair order.
   */
  compare(texts: readonly string[], pairs: Uint32Array): Promise<Array<DetectedRelation | null>>;
  /** Drops the run's texts and analyses. */
  end(): void;
}

export interface RelationDetection {
  start(): RelationRun;
  close(): Promise<void>;
}
