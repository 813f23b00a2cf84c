/**
 * Gives a thread's spare heap back to the system once the thread has gone quiet. Under load V8
 * grows each heap ahead of what it keeps, and after collecting it keeps the freed pages for the
 * next allocations, so a server that has just worked holds far more than it keeps: 530 MiB
 * anonymous at 100,000 memories after test/bench/memory.ts's workload, 374 after a trim
 * (test/bench/RESULTS.md). V8's own memory reducer, which runs after a few quiet seconds, shrinks
 * a heap's counted size but leaves the freed pages resident.
 *
 * Every `checkMs` the thread looks at its event loop: when it was busy for less than 1 % of
 * that period and has worked at least `workMs` since its last trim (or since it started), it
 * runs one memory-reducing full collection (V8's "last resort": collections until nothing more is
 * freed, then the pooled pages unmapped). A thread that stays idle trims once; one that never
 * stops working never trims. The collection runs on the thread itself, so a request that arrives
 * meanwhile waits for it (tens of milliseconds for a search thread's 120 MiB of caches).
 *
 * The collection is V8's `gc` function, exposed with `--expose-gc` at run time (as jest's leak
 * detector does); where that is not available (another runtime) nothing is trimmed.
 */
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

export interface IdleHeapTrimOptions {
  checkMs?: number;
  workMs?: number;
  /** Called after each trim with how long it took. */
  onTrim?: (milliseconds: number) => void;
}

/** The share of a period a quiet thread's loop may be busy. */
const quietShare = 0.01;

let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (!exposed) setFlagsFromString("--expose-gc");
    collect = exposed ?? (runInNewContext("gc") as Collect);
  } catch {
    collect = null;
  }
  return collect;
}

/** Starts watching the calling thread; the returned function stops it. */
export function trimHeapWhenIdle({
  checkMs = 5_000,
  workMs = 1_000,
  onTrim,
}: IdleHeapTrimOptions = {}): () => void {
  const gc = collector();
  if (!gc) return () => {};
  let last = performance.eventLoopUtilization();
  // Starting (modules, connections, statements) is work: the first quiet period trims.
  let worked = workMs;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const period = performance.eventLoopUtilization(now, last);
    last = now;
    worked += period.active;
    if (worked < workMs || period.active > quietShare * (period.idle + period.active)) return;
    const started = performance.now();
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    worked = 0;
    // The collection itself is not work to trim after.
    last = performance.eventLoopUtilization();
    onTrim?.(performance.now() - started);
  }, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
