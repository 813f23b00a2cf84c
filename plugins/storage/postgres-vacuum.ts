/**
 * PostgreSQL: the memory tables vacuumed once a burst of writes has been linked and gone quiet.
 *
 * Recall reads postings by index-only scans (the postings key includes every column it needs),
 * which skip the table only for pages the visibility map marks all-visible, and only VACUUM marks
 * them. Autovacuum gets there at its next round, up to a minute away (`autovacuum_naptime`), and
 * for a large table only after a fifth of it is new (`autovacuum_vacuum_insert_scale_factor`).
 * Meanwhile every new posting is one more heap fetch, and the term counts, account counts and
 * link queue carry the dead rows of the burst's updates: measured on 100,000 memories just
 * imported, recall p95 went from 13.5–14.0 ms to 9.6–10.3 ms once they were vacuumed, a vacuum of
 * 0.15–0.3 s (test/bench/RESULTS.md). Other replicas' vacuums of the same tables are passed over
 * (`skip_locked`), not waited for.
 *
 * The vacuum analyses the tables too: autovacuum analyses a table again only once a tenth of its
 * rows changed since the last time, so after a large import the planner kept the statistics of
 * its early part (memory_postings, 1.2 million rows at 100,000 memories, last analysed early in the
 * import) and planned an account it had not seen as holding one posting.
 */
import type { Logger } from "../../core/index.ts";

/** The tables a burst of memory writes leaves to vacuum. */
export const vacuumStatement =
  "vacuum (skip_locked, analyze) memory_postings, memory_terms, memory_counts, memory_link_jobs, memories, memory_relations";

export interface VacuumSettings {
  execute(sql: string): Promise<unknown>;
  logger: Logger;
  /** Memories linked since the last vacuum that make the next one worth it. */
  everyMemories?: number;
  /** How long after the last link run the vacuum starts. */
  quietMs?: number;
}

export interface PostgresVacuum {
  /** Tells it a link run committed `memories` linked memories. */
  linked(memories: number): void;
  /** Cancels a vacuum not started yet and waits for one under way. */
  stop(): Promise<void>;
}

export function vacuumAfterBursts(settings: VacuumSettings): PostgresVacuum {
  const everyMemories = settings.everyMemories ?? 10_000;
  const quietMs = settings.quietMs ?? 1_000;
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    // Links that committed while a vacuum ran wait for the next quiet spell.
    if (running !== null) return schedule();
    since = 0;
    running = settings
      .execute(vacuumStatement)
      .then(
        () => {},
        (error: unknown) =>
          settings.logger.warn({ err: error }, "vacuum after a burst of memory writes failed"),
      )
      .finally(() => {
        running = null;
      });
  };
  const schedule = () => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(run, quietMs);
    timer.unref?.();
  };
  return {
    linked(memories) {
      since += memories;
      if (since >= everyMemories) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
