import { describe, expect, it } from "vitest";
import { inWalkTurn, walksPerAccount } from "./walk-turns.ts";

/** A walk that runs until released. */
function heldWalk() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = false;
  return {
    work: async () => {
      started = true;
      await held;
      return "walked";
    },
    release: () => release(),
    started: () => started,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("walks taking turns per account", () => {
  it("runs two of an account's walks at once, the next when one ends; another account's at once", async () => {
    expect(walksPerAccount).toBe(2);
    const [first, second, third] = [heldWalk(), heldWalk(), heldWalk()];
    const other = heldWalk();
    const runs = [first, second, third].map((walk) => inWalkTurn("account-a", walk.work));
    const otherRun = inWalkTurn("account-b", other.work);
    await settle();
    expect([first.started(), second.started(), third.started(), other.started()]).toEqual([
      true,
      true,
      false,
      true,
    ]);
    second.release();
    await settle();
    expect(third.started()).toBe(true);
    first.release();
    third.release();
    other.release();
    expect(await Promise.all([...runs, otherRun])).toEqual(["walked", "walked", "walked", "walked"]);
  });

  it("gives the turn on when a walk fails", async () => {
    const failing = inWalkTurn("account-c", async () => {
      throw new Error("gone");
    });
    const [first, second] = [heldWalk(), heldWalk()];
    const runs = [inWalkTurn("account-c", first.work), inWalkTurn("account-c", second.work)];
    await expect(failing).rejects.toThrow("gone");
    await settle();
    expect([first.started(), second.started()]).toEqual([true, true]);
    first.release();
    second.release();
    await Promise.all(runs);
    // The account's turns are free again: two more start at once.
    const [third, fourth] = [heldWalk(), heldWalk()];
    const more = [inWalkTurn("account-c", third.work), inWalkTurn("account-c", fourth.work)];
    await settle();
    expect([third.started(), fourth.started()]).toEqual([true, true]);
    third.release();
    fourth.release();
    await Promise.all(more);
  });
});
