/**
 * Long CPU work of one request, cut into slices that take turns with everything else on the event
 * loop. The server answers every account on one thread: work whose size a client chooses (a
 * 500-memory import's relation detection, a 256 KiB ingest) must not hold that thread for
 * longer than a slice, or every other request waits behind it (issue: no account can stall the
 * server for the others).
 *
 * Tasks waiting for a turn resume one per turn of the event loop, in the order they asked, and
 * each turn polls I/O first: with eight imports running, another account's request waits for
 * at most one slice, not for a slice of each of them. Web-standard apart from `setImmediate`
 * (Node, Deno), with `setTimeout` where it is missing.
 */
import { othersBeingServed } from "./account-activity.ts";

/**
 * Work a slice may do before it gives the thread back. A request of another account waits for a
 * slice at each of its turns: beside eight 16 MiB imports, a bystander's p99 was 24.3 ms with
 * 5 ms slices, 19.1 with 2 and 15.8 with 1, the imports as fast (test/bench/RESULTS.md).
 */
export const sliceMilliseconds = 1;

const waiting: Array<() => void> = [];
let scheduled = false;

// Scheduled from inside a turn, setImmediate runs on the next turn of the loop, after its poll
// for I/O; setTimeout(0) is the nearest equivalent where it is missing.
const later: (run: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (run) => globalThis.setImmediate(run)
    : (run) => setTimeout(run, 0);

function resumeNext(): void {
  const resume = waiting.shift();
  if (waiting.length > 0) later(resumeNext);
  else scheduled = false;
  // Its slice runs in the microtasks right after this callback, before the next turn.
  resume?.();
}

/** Resolves on this task's next turn of the event loop. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      later(resumeNext);
    }
  });
}

export interface Slices {
  /** Gives the thread back (waits for a turn) once the slice's time is spent; else resolves at once. */
  pause(): Promise<void>;
}

/** The longest a paced slice waits: a bulk statement of a second still gets on. */
export const maxPaceMilliseconds = 50;

/**
 * Slices of `milliseconds` of work each, for one task: call `pause()` between small steps.
 *
 * Paced for an account (`createPacedSlices`): bulk work whose cost falls on another process,
 * PostgreSQL's backend running a batch's statements, on the same cores as every other account's
 * backend, with no priority to give it. While another account is being served
 * (account-activity.ts), each pause from the second on waits as long as the slice took (at most
 * `maxPaceMilliseconds`), so the batch takes about half the database's CPU it would and the other
 * account's statements find a core; alone, it runs at full speed. A write of one statement (a
 * remember's row, postings or edges) is never held up.
 */
export function createSlices(milliseconds = sliceMilliseconds, pacedFor?: string): Slices {
  let started = performance.now();
  let first = true;
  return {
    async pause() {
      const took = performance.now() - started;
      if (took < milliseconds) return;
      const paced = pacedFor !== undefined && !first && othersBeingServed(pacedFor);
      first = false;
      if (paced) await new Promise((resolve) => setTimeout(resolve, Math.min(took, maxPaceMilliseconds)));
      else await nextTurn();
      started = performance.now();
    },
  };
}

/** Slices of bulk work for `accountId`, paced while another account is served (`createSlices`). */
export function createPacedSlices(accountId: string, milliseconds = sliceMilliseconds): Slices {
  return createSlices(milliseconds, accountId);
}

/** Maps `items` through `work` in slices: the results in order, the thread given back between. */
export async function mapInSlices<Item, Result>(
  items: readonly Item[],
  work: (item: Item, index: number) => Result,
  slices: Slices = createSlices(),
): Promise<Result[]> {
  const results: Result[] = [];
  for (const [index, item] of items.entries()) {
    results.push(work(item, index));
    await slices.pause();
  }
  return results;
}

/** Strings sorted in code-unit order (as `sort()` sorts them): short runs sorted, then merged in slices. */
export async function sortInSlices(
  items: readonly string[],
  slices: Slices = createSlices(),
): Promise<string[]> {
  const runLength = 2_048;
  let runs: string[][] = [];
  for (let start = 0; start < items.length; start += runLength) {
    runs.push(items.slice(start, start + runLength).sort());
    await slices.pause();
  }
  while (runs.length > 1) {
    const merged: string[][] = [];
    for (let index = 0; index < runs.length; index += 2)
      merged.push(index + 1 < runs.length ? await merge(runs[index], runs[index + 1], slices) : runs[index]);
    runs = merged;
  }
  return runs[0] ?? [];
}

async function merge(first: string[], second: string[], slices: Slices): Promise<string[]> {
  const merged: string[] = [];
  let a = 0;
  let b = 0;
  while (a < first.length && b < second.length) {
    merged.push(first[a] <= second[b] ? first[a++] : second[b++]);
    if (merged.length % 4_096 === 0) await slices.pause();
  }
  for (; a < first.length; a++) merged.push(first[a]);
  for (; b < second.length; b++) merged.push(second[b]);
  return merged;
}
