/**
 * Relation detection's comparisons run on the relation thread (platform/relation-threads.ts), not
 * on the thread that serves every account (issue 39): an import's 50,000 comparisons are the
 * tenant's CPU. Through the real write path on both stores, and the thread against the serving
 * thread's own comparisons.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInlineRelationDetection, type RelationDetection } from "../../core/index.ts";
import { textsAnalysedHere } from "../../core/memory/relation-runs.ts";
import { silentLogger } from "../../core/ports/logger.ts";
import { createRelationThread } from "../../platform/relation-threads.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, newAccount } from "./memory-client.ts";

// Texts no earlier test analysed (a thread keeps the analyses of recent texts): the old fact,
// then an import larger than the linker links inside its transaction (16) restating it.
const oldFact = (project: string) => `The deployment of ${project} uses blue-green rollout.`;
const importRestating = (project: string) => ({
  memories: [
    { content: `The deployment of ${project} uses canary rollout.`, scope: "plan" },
    ...Array.from({ length: 24 }, (_, index) => ({
      content: `Filler note ${index}: the ${project} service ${index} runs on node ${index + 40}.`,
      scope: "plan",
    })),
  ],
});

/**
 * Remembers `project`'s old fact on a new account, then `restate`s it (answering the restating
 * memory's id): which memory superseded the old one, the restating one, and how many texts the
 * serving thread analysed for the restatement.
 */
async function restated(
  test: TestPlatform,
  project: string,
  restate: (memory: MemoryClient) => Promise<string>,
) {
  const { accountId, memory } = await newAccount(test);
  const old = await memory.remember({ content: oldFact(project), scope: "plan" });
  await test.platform.memoryWriter.settle(accountId);
  const before = textsAnalysedHere();
  const restating = await restate(memory);
  await test.platform.memoryWriter.settle(accountId);
  return {
    supersededBy: (await memory.get(old.id)).superseded_by_id,
    restating,
    analysedHere: textsAnalysedHere() - before,
  };
}

const importing = (project: string) => async (memory: MemoryClient) =>
  (await memory.import(importRestating(project))).memories[0].id;

describe.each(storageTargets)("relation detection of writes on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createMemoryPlatform(target);
  });
  afterAll(() => test.close());

  it("compares an import's memories on the relation thread: the serving thread analyses no text", async () => {
    const { supersededBy, restating, analysedHere } = await restated(
      test,
      `${target} threads`,
      importing(`${target} threads`),
    );
    expect(supersededBy).toBe(restating);
    expect(analysedHere).toBe(0);
  });

  it("compares a remember's few texts inside its transaction, on the serving thread", async () => {
    // A transaction (SQLite's one writer) never waits for the relation thread.
    const project = `${target} remembers`;
    const { supersededBy, restating, analysedHere } = await restated(test, project, async (memory) => {
      const again = await memory.remember({
        content: `The deployment of ${project} uses shadow rollout now.`,
        scope: "plan",
      });
      return again.id;
    });
    expect(supersededBy).toBe(restating);
    expect(analysedHere).toBeGreaterThan(0);
  });
});

describe("relation detection without threads (the Deno entry)", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", {
      environment: { SVC_PATTERN_THREADS: "0", SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "1000000" },
    });
  });
  afterAll(() => test.close());

  it("compares on the serving thread, in slices, with the same result", async () => {
    const { supersededBy, restating, analysedHere } = await restated(test, "Deno", importing("Deno"));
    expect(supersededBy).toBe(restating);
    expect(analysedHere).toBeGreaterThan(0);
  });
});

describe("the relation thread", () => {
  let thread: RelationDetection;
  beforeAll(() => {
    thread = createRelationThread({ logger: silentLogger });
  });
  afterAll(() => thread.close());

  const texts = [
    "My favorite color is now green.",
    "My favorite color is blue.",
    "Alice works at Acme Corp in Berlin.",
    "Alice from Acme Corp visited Paris in May.",
    "Bananas are yellow.",
  ];
  // Pairs sent in two messages, the second naming a text sent with the first.
  const pairs = [
    [0, 1],
    [1, 2],
    [3, 2],
    [4, 1],
  ];

  const compare = async (detection: RelationDetection) => {
    const run = detection.start();
    try {
      const first = await run.compare(texts.slice(0, 3), Uint32Array.from(pairs.slice(0, 2).flat()));
      const second = await run.compare(texts.slice(3), Uint32Array.from(pairs.slice(2).flat()));
      return [...first, ...second];
    } finally {
      run.end();
    }
  };

  it("finds the relations the serving thread finds", async () => {
    const onThread = await compare(thread);
    expect(onThread).toEqual(await compare(createInlineRelationDetection()));
    expect(onThread[0]?.type).toBe("updates");
    expect(onThread[1]).toBeNull();
    expect(onThread[2]).not.toBeNull();
  });

  it("keeps the texts of runs under way at once apart", async () => {
    const first = thread.start();
    const second = thread.start();
    const [a, b] = await Promise.all([
      first.compare(["My favorite color is now green.", "My favorite color is blue."], Uint32Array.of(0, 1)),
      second.compare(["Bananas are yellow.", "My favorite color is blue."], Uint32Array.of(0, 1)),
    ]);
    first.end();
    second.end();
    expect(a[0]?.type).toBe("updates");
    expect(b[0]).toBeNull();
  });

  it("fails a run that names a text it never sent, and goes on serving the next", async () => {
    const broken = thread.start();
    await expect(broken.compare(["Bananas are yellow."], Uint32Array.of(0, 1))).rejects.toThrow(
      /no text 1 in this link run/,
    );
    broken.end();
    expect(await compare(thread)).toHaveLength(pairs.length);
  });
});
