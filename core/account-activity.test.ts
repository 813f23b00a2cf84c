import { afterEach, describe, expect, it, vi } from "vitest";
import { othersBeingServed, requestStarted } from "./account-activity.ts";
import { createPacedSlices } from "./event-loop-turns.ts";

/** Holds the thread for `milliseconds`: a slice of work. */
function work(milliseconds: number) {
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {}
}

describe("the accounts being served", () => {
  it("counts another account while its request runs and a moment after, never the account itself", () => {
    expect(othersBeingServed("bulk")).toBe(false);
    const ownDone = requestStarted("bulk");
    expect(othersBeingServed("bulk")).toBe(false);
    const first = requestStarted("other");
    const second = requestStarted("other");
    first();
    first();
    expect(othersBeingServed("bulk")).toBe(true);
    expect(othersBeingServed("other")).toBe(true);
    second();
    ownDone();
    // Just finished: its next request is on its way.
    expect(othersBeingServed("bulk")).toBe(true);
    expect(othersBeingServed("bulk", performance.now() + 101)).toBe(false);
    expect(othersBeingServed("bulk")).toBe(false);
  });
});

describe("paced slices", () => {
  afterEach(() => vi.restoreAllMocks());
  const pacing = (timers: { mock: { calls: unknown[][] } }) =>
    timers.mock.calls.map(([, delay]) => delay).filter((delay) => typeof delay === "number" && delay > 0);

  it("take a turn alone, and from the second slice on wait as long as it took, at most 50 ms, while another account is served", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const alone = createPacedSlices("bulk");
    work(5);
    await alone.pause();
    expect(pacing(timers)).toEqual([]);

    const done = requestStarted("other");
    const paced = createPacedSlices("bulk");
    // A write's first statement (all of a small write) is never held up.
    work(5);
    await paced.pause();
    expect(pacing(timers)).toEqual([]);
    work(5);
    await paced.pause();
    work(80);
    await paced.pause();
    done();
    const [short, long] = pacing(timers) as number[];
    expect(short).toBeGreaterThanOrEqual(5);
    expect(short).toBeLessThan(50);
    expect(long).toBe(50);
  });
});
