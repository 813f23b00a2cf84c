import { readFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { trimHeapWhenIdle } from "./index.ts";

const checkMs = 40;
const mebibyte = 1024 * 1024;

/** The process's anonymous resident memory (heaps and malloc's, not mapped files), in bytes. */
const residentAnonymous = () =>
  Number(readFileSync("/proc/self/status", "utf8").match(/^RssAnon:\s+(\d+) kB/m)?.[1]) * 1024;

/** Resolves after `count` periods of `checkMs`, counted by a timer set after the trimmer's: with the
 * same period, Node runs the trimmer's check first, so `count` checks have run by then. */
function checks(count: number, duringEach?: () => void): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const timer = setInterval(() => {
      if (++seen < count) return duringEach?.();
      clearInterval(timer);
      resolve();
    }, checkMs);
  });
}

/** Allocates and drops garbage in 5 ms slices until `until` settles: a thread that never goes quiet. */
async function busyUntil(until: Promise<void>): Promise<void> {
  let done = false;
  void until.then(() => {
    done = true;
  });
  while (!done) {
    const end = performance.now() + 5;
    let garbage: number[][] = [];
    while (performance.now() < end) garbage.push(Array.from({ length: 64 }, (_, index) => index));
    garbage = [];
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("trimHeapWhenIdle", () => {
  it("trims a thread once after it goes quiet, never while it works, and gives heap back", async () => {
    const trims: number[] = [];
    let trimmed: () => void = () => {};
    const firstTrim = new Promise<void>((resolve) => {
      trimmed = resolve;
    });
    const stop = trimHeapWhenIdle({
      checkMs,
      workMs: 50,
      onTrim: (milliseconds) => {
        trims.push(milliseconds);
        trimmed();
      },
    });
    try {
      // Busy for six checks: the thread is never quiet, so nothing is trimmed.
      await busyUntil(checks(6));
      expect(trims).toHaveLength(0);

      // 80 MB kept, then dropped: V8 keeps the pages, resident, until a collection that reduces
      // memory (an ordinary full collection shrinks the heap's size by half as much and gives
      // back about 3 MiB of resident memory).
      let kept: string[] | null = Array.from({ length: 400_000 }, (_, index) => `row ${index} `.repeat(20));
      expect(kept.length).toBe(400_000);
      kept = null;
      const heapBefore = getHeapStatistics().total_heap_size;
      const residentBefore = residentAnonymous();
      await firstTrim;
      expect(getHeapStatistics().total_heap_size).toBeLessThan(heapBefore - 60 * mebibyte);
      expect(residentAnonymous()).toBeLessThan(residentBefore - 60 * mebibyte);

      // Quiet for ten more checks: one trim is enough.
      await checks(10);
      expect(trims).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it("stops checking once stopped", async () => {
    const trims: number[] = [];
    const stop = trimHeapWhenIdle({ checkMs, workMs: 0, onTrim: (milliseconds) => trims.push(milliseconds) });
    stop();
    await checks(5);
    expect(trims).toHaveLength(0);
  });
});
