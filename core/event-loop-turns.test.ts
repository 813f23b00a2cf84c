import { describe, expect, it } from "vitest";
import { seededRandom } from "../test/support/seeded-random.ts";
import { createSlices, mapInSlices, nextTurn, sortInSlices } from "./event-loop-turns.ts";

describe("event-loop turns", () => {
  it("resumes waiting tasks one per turn, in order, with other work of the loop between them", async () => {
    const order: string[] = [];
    const task = async (name: string) => {
      for (let slice = 0; slice < 3; slice++) {
        await nextTurn();
        order.push(`${name}${slice}`);
      }
    };
    // Work of another request, queued the same way I/O callbacks are: one per turn.
    const other = async () => {
      for (let step = 0; step < 3; step++) {
        await new Promise((resolve) => setImmediate(resolve));
        order.push(`other${step}`);
      }
    };
    await Promise.all([task("a"), task("b"), other()]);
    // Eight imports' slices would otherwise all run before the next request: here the other work
    // never waits for more than one slice of each task.
    expect(order).toEqual(["a0", "other0", "b0", "other1", "a1", "other2", "b1", "a2", "b2"]);
  });

  it("gives the thread back only once a slice's time is spent", async () => {
    const slices = createSlices(50);
    let turns = 0;
    const counting = (async () => {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        if (++turns > 1000) return;
      }
    })();
    // Well within the slice: no turn taken.
    await slices.pause();
    await slices.pause();
    expect(turns).toBe(0);
    const until = performance.now() + 60;
    while (performance.now() < until) {}
    await slices.pause();
    expect(turns).toBeGreaterThan(0);
    turns = 1000;
    await counting;
  });

  it("maps in order through slices", async () => {
    expect(await mapInSlices([1, 2, 3], (value, index) => value * 10 + index, createSlices(0))).toEqual([
      10, 21, 32,
    ]);
  });

  it("sorts as sort() does, in runs merged a slice at a time", async () => {
    const random = seededRandom(3);
    for (const count of [0, 1, 2_047, 2_049, 10_000]) {
      const keys = Array.from(
        { length: count },
        () => `${Math.floor(random() * 5_000)}${random() < 0.1 ? "é😀" : ""}`,
      );
      expect(await sortInSlices(keys, createSlices(0))).toEqual([...keys].sort());
    }
  });
});
