/**
 * Relation detection of a large chunk holds no transaction while it compares
 * (core/memory/link-writes.ts): the linker reads and compares outside one, then writes what it
 * found in a transaction of its own if the account's memories did not change meanwhile, and
 * works them out again inside it if they did. An account's write transactions run one at a time
 * (memory-writer.ts `exclusive`). On both stores, through the real write path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryStore } from "../../core/index.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("linking beside its transaction on %s", (target) => {
  let test: TestPlatform;
  // The store methods each memory transaction called, in order.
  let transactions: string[][] = [];
  let open = 0;
  let mostOpen = 0;
  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    const memories = test.platform.storage.memories;
    const transaction = memories.transaction.bind(memories);
    memories.transaction = (work) =>
      transaction(async (store) => {
        const calls: string[] = [];
        transactions.push(calls);
        open++;
        mostOpen = Math.max(mostOpen, open);
        const recording = new Proxy(store, {
          get(target, name, receiver) {
            const value = Reflect.get(target, name, receiver);
            if (typeof value !== "function") return value;
            return (...parameters: unknown[]) => {
              calls.push(String(name));
              return value.apply(target, parameters);
            };
          },
        }) as MemoryStore;
        try {
          return await work(recording);
        } finally {
          open--;
        }
      });
  });
  afterAll(() => test.close());

  const linkingTransactions = () => transactions.filter((calls) => calls.includes("completeLinks"));
  // An import of more memories than the linker links inside its transaction (16), the first one
  // restating `statement`, the others unrelated to it.
  const importWith = (statement: string, scope: string) => ({
    memories: [
      { content: statement, scope },
      ...Array.from({ length: 19 }, (_, index) => ({
        content: `Filler note number ${index} about ${scope}.`,
        scope,
      })),
    ],
  });

  it("reads and compares outside the linking transaction, and writes what it found inside", async () => {
    const { accountId, memory } = await newAccount(test);
    const old = await memory.remember({ content: "The deployment uses blue-green rollout.", scope: "plan" });
    await test.platform.memoryWriter.settle(accountId);
    transactions = [];
    const imported = await memory.import(importWith("The deployment uses canary rollout.", "plan"));
    const current = imported.memories[0];
    await test.platform.memoryWriter.settle(accountId);
    expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    const [linking] = linkingTransactions();
    expect(linking).toBeDefined();
    // No candidate rows read in the transaction: they were read, and compared, before it.
    expect(linking).not.toContain("recent");
    expect(linking).toContain("supersede");
  });

  it("works the links out again inside the transaction when the memories changed meanwhile", async () => {
    const { accountId, memory } = await newAccount(test);
    const old = await memory.remember({ content: "My favorite color is blue.", scope: "colors" });
    await test.platform.memoryWriter.settle(accountId);
    const memories = test.platform.storage.memories;
    const version = memories.version.bind(memories);
    // As if another replica wrote just after the linker read the account's version.
    memories.version = async (id) => (await version(id)) - 1;
    try {
      transactions = [];
      const imported = await memory.import(importWith("My favorite color is now green.", "colors"));
      const current = imported.memories[0];
      await test.platform.memoryWriter.settle(accountId);
      expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    } finally {
      memories.version = version;
    }
    const [linking] = linkingTransactions();
    expect(linking).toContain("recent");
  });

  it("runs an account's concurrent imports one transaction at a time", async () => {
    const { accountId, memory } = await newAccount(test);
    mostOpen = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, batch) =>
        memory.import({
          memories: Array.from({ length: 20 }, (_, index) => ({
            content: `Batch ${batch} says the service ${index} runs on node ${batch * 20 + index}.`,
            scope: "fleet",
          })),
        }),
      ),
    );
    await test.platform.memoryWriter.settle(accountId);
    // Six at once would hold six database connections (PostgreSQL; five waiting on the account's
    // lock), or queue six transactions in front of every other account's at SQLite's one writer.
    expect(mostOpen).toBe(1);
    // Every row written (superseded ones included: the batches restate each other).
    expect((await memory.export("fleet")).memories).toHaveLength(120);
  });
});
