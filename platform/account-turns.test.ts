/**
 * Accounts take turns for the worker threads (account-turns.ts): one account's many queued items
 * never stand in front of another account's one.
 */
import { describe, expect, it } from "vitest";
import { createAccountTurns } from "./account-turns.ts";

describe("account turns", () => {
  it("serve the account with the fewest running first, whatever order the items came in", () => {
    const turns = createAccountTurns<string>();
    for (const item of ["a1", "a2", "a3", "a4"]) turns.enqueue("a", item);
    turns.enqueue("b", "b1");
    expect(turns.take()?.item).toBe("a1");
    // b has nothing running, a has one: b's one item goes before a's three waiting.
    expect(turns.take()?.item).toBe("b1");
    expect(turns.take()?.item).toBe("a2");
    turns.enqueue("b", "b2");
    expect(turns.take()?.item).toBe("b2");
    expect(turns.take()?.item).toBe("a3");
  });

  it("among accounts running as many, serve the one served longest ago", () => {
    const turns = createAccountTurns<string>();
    turns.enqueue("a", "a1");
    turns.enqueue("a", "a2");
    expect(turns.take()).toEqual({ accountId: "a", item: "a1" });
    turns.finished("a");
    // Neither runs anything now; a was served, b never.
    turns.enqueue("b", "b1");
    expect(turns.take()?.item).toBe("b1");
    expect(turns.take()?.item).toBe("a2");
    expect(turns.take()).toBeNull();
  });

  it("says whether anything waits, and drains what does", () => {
    const turns = createAccountTurns<string>();
    expect(turns.waiting).toBe(false);
    turns.enqueue("a", "a1");
    turns.enqueue("a", "a2");
    turns.enqueue("b", "b1");
    expect(turns.waiting).toBe(true);
    turns.take();
    expect(turns.drain().sort()).toEqual(["a2", "b1"]);
    expect(turns.waiting).toBe(false);
    expect(turns.take()).toBeNull();
  });
});
