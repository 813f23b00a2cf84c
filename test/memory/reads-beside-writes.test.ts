/**
 * One account's long write must not hold the others' reads (issue: no account can stall the
 * server for the others). A memory transaction of account A is held open, as a 16 MiB import
 * holds one for seconds; account B's whoami, search and the search's access counts are answered
 * meanwhile, exactly. On SQLite the reads go to a second connection
 * (plugins/storage/sql-execution.ts) and a search does not wait for B's access-count write queued
 * behind A (memory-writer.ts); on PostgreSQL they never shared a lock. On both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, newAccount } from "./memory-client.ts";

/**
 * Resolves with `work`'s result, or fails once it has plainly waited for the held transaction,
 * which is never released while it waits: the bound only ends a hang, however busy the machine.
 */
async function answeredWhileHeld<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const held = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("still waiting for the other account's transaction")), 20_000);
  });
  try {
    return await Promise.race([work, held]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(storageTargets)("reads beside another account's open write on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createMemoryPlatform(target);
  });
  afterAll(() => test.close());

  /** Holds a memory transaction of `accountId` open until the returned release is called. */
  async function holdTransaction(accountId: string) {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let opened = () => {};
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const done = test.platform.storage.memories.transaction(async (store) => {
      await store.version(accountId);
      opened();
      await gate;
    });
    await open;
    return async () => {
      release();
      await done;
    };
  }

  it("answers whoami and a search while the other account's transaction is open", async () => {
    const writer = await newAccount(test);
    const reader = await newAccount(test);
    const { id } = await reader.memory.remember({ content: "The lighthouse keeper logs the tide." });
    // The key's first use is written (last_used_at), and the memory linked (a search links the
    // account's own writes first): the calls under test are reads only.
    expect((await reader.memory.send("/v1/account")).status).toBe(200);
    await test.platform.memoryWriter.settle(reader.accountId);
    // With semantic search on, the reader's vector is written too before the reads under test.
    await test.platform.memoryEmbedder?.drain();
    const release = await holdTransaction(writer.accountId);
    try {
      const whoami = await answeredWhileHeld(reader.memory.send("/v1/account"));
      expect(whoami.status).toBe(200);
      const found = await answeredWhileHeld(reader.memory.search("lighthouse tide"));
      expect(found.memories.map((row) => row.id)).toEqual([id]);
    } finally {
      await release();
    }
  });

  it("counts a search's accesses exactly while their write waits behind the other account", async () => {
    const writer = await newAccount(test);
    const reader = await newAccount(test);
    const { id } = await reader.memory.remember({ content: "The harbour master rings the bell at dawn." });
    const countOf = async () =>
      (await answeredWhileHeld(reader.memory.search("harbour bell dawn"))).memories.find(
        (row) => row.id === id,
      )?.access_count;
    expect(await countOf()).toBe(1);
    await test.platform.memoryEmbedder?.drain();
    const release = await holdTransaction(writer.accountId);
    let written: Promise<void> = Promise.resolve();
    try {
      // The reader's counts start to be written now; on SQLite the write waits for the writer's
      // transaction, and the searches meanwhile neither wait for it nor lose its counts.
      written = test.platform.memoryWriter.settle(reader.accountId);
      if (target === "sqlite") {
        expect(await countOf()).toBe(2);
        expect(await countOf()).toBe(3);
      }
    } finally {
      await release();
      await written;
    }
    const stored = (await reader.memory.get(id)).access_count;
    expect(stored).toBe(target === "sqlite" ? 3 : 1);
    expect(await countOf()).toBe(stored + 1);
  });
});
