/**
 * A search reads the account's own writes linked (docs/memory.md#writes). Writes this process
 * committed and has not linked yet are linked before the search starts: the search threads are
 * asked once, not once to find them queued and again after linking. Writes the process does not
 * know of (another replica's) are still found by the search's own first read. On both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareMemories, writeMemories } from "../../core/memory/write-memory.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { factInput } from "../support/memory-writes.ts";
import { createAccountWithKey, storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, memoryClient } from "./memory-client.ts";

describe.each(storageTargets)("a search just after a write on %s", (target) => {
  const clock = createFakeClock();
  let test: TestPlatform;
  let memory: MemoryClient;
  let accountId: string;
  // How each recall asked the search threads: whether it asked them to check the link queue.
  const asked: Array<boolean | undefined> = [];
  // Reads of the link queue outside a linking transaction, and of the query terms' statistics.
  let queueReads = 0;
  let statisticsReads = 0;
  let releaseBackgroundLinker = () => {};
  const backgroundLinker = new Promise<void>((resolve) => {
    releaseBackgroundLinker = resolve;
  });

  beforeAll(async () => {
    test = await createMemoryPlatform(target, { clock });
    const account = await createAccountWithKey(test);
    accountId = account.accountId;
    memory = memoryClient(test, account.key);
    const search = test.platform.memorySearch;
    const recall = search.recall.bind(search);
    search.recall = (id, request) => {
      asked.push(request.unlessLinksQueued);
      return recall(id, request);
    };
    const { memories } = test.platform.storage;
    const linkJobs = memories.linkJobs.bind(memories);
    memories.linkJobs = (id, limit) => {
      queueReads++;
      return linkJobs(id, limit);
    };
    // The background linker (which starts 20 ms after a write) is held back for the whole file,
    // so what a search finds does not depend on how soon it follows the write.
    const linkAccounts = memories.linkAccounts.bind(memories);
    memories.linkAccounts = async (limit) => {
      await backgroundLinker;
      return linkAccounts(limit);
    };
    const termStatistics = memories.termStatistics.bind(memories);
    memories.termStatistics = (id, terms, shortLists) => {
      statisticsReads++;
      return termStatistics(id, terms, shortLists);
    };
  });
  afterAll(async () => {
    releaseBackgroundLinker();
    await test.close();
  });

  const searchIds = async (query: string, scope: string) => {
    asked.length = 0;
    queueReads = 0;
    statisticsReads = 0;
    return (await memory.search(query, { scope })).memories.map((row) => row.id);
  };

  it("links the account's own remember before searching, and searches once", async () => {
    const scope = "own-write";
    const old = await memory.remember({ content: "The staging cluster uses blue-green rollout.", scope });
    clock.advance(1000);
    const current = await memory.remember({ content: "The staging cluster uses canary rollout.", scope });
    expect(await searchIds("staging cluster rollout", scope)).toEqual([current.id]);
    expect(asked).toEqual([false]);
    // One read found the write queued; the link that followed emptied the queue, so it was not
    // read again just to find it empty.
    expect(queueReads).toBe(1);
    expect((await memory.get(old.id)).superseded_by_id).toBe(current.id);
    // Nothing written since: the search checks the queue in its own first read.
    expect(await searchIds("staging cluster rollout", scope)).toEqual([current.id]);
    expect(asked).toEqual([true]);
  });

  it("reads the query terms' statistics once in the search just after linking", async () => {
    const scope = "kept-terms";
    await memory.remember({ content: "The lighthouse keeper logs the tide.", scope });
    // Searched twice: the terms are kept at the account's version.
    await searchIds("lighthouse tide", scope);
    await searchIds("lighthouse tide", scope);
    expect(statisticsReads).toBe(1);
    clock.advance(1000);
    const lamp = await memory.remember({ content: "The lighthouse lamp shines past the tide line.", scope });
    // The version moved with the write and its link: the kept terms are not tried first, only to
    // find them outdated and read them again.
    expect(await searchIds("lighthouse tide", scope)).toContain(lamp.id);
    expect(asked).toEqual([false]);
    expect(statisticsReads).toBe(1);
  });

  it("links an import and an ingest of the account before searching", async () => {
    const scope = "own-import";
    const { memories } = await memory.import({
      memories: [{ content: "The billing service runs on node eleven.", scope }],
    });
    expect(await searchIds("billing service node", scope)).toEqual([memories[0].id]);
    expect(asked).toEqual([false]);
    clock.advance(1000);
    const ingested = await memory.ingest({ content: "The billing service now runs on node twelve.", scope });
    const current = ingested.memories.map((row) => row.id);
    expect(current.length).toBeGreaterThan(0);
    expect(await searchIds("billing service node twelve", scope)).toEqual(expect.arrayContaining(current));
    expect(asked).toEqual([false]);
  });

  it("still finds writes it did not make queued, links them and searches again", async () => {
    const scope = "other-replica";
    const old = await memory.remember({ content: "The archive cluster uses blue-green rollout.", scope });
    // Searched once: the account's own write is linked, nothing of it pending any more.
    expect(await searchIds("archive cluster rollout", scope)).toEqual([old.id]);
    clock.advance(1000);
    // Another replica's remember, say: committed with its link job, this process not told.
    const [prepared] = await prepareMemories(
      [factInput("The archive cluster uses canary rollout.", scope)],
      clock.now(),
    );
    const {
      ids: [current],
    } = await test.platform.storage.memories.transaction((store) =>
      writeMemories(store, accountId, [prepared], clock.now()),
    );
    expect(await searchIds("archive cluster rollout", scope)).toEqual([current]);
    expect(asked).toEqual([true, false]);
    expect((await memory.get(old.id)).superseded_by_id).toBe(current);
  });
});
