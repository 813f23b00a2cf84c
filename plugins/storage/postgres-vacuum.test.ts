/**
 * The vacuum after a burst of memory writes: when it runs (a schedule of its own, timers faked),
 * and, on real PostgreSQL, that a platform vacuums the memory tables after an import of 10,000
 * memories has been linked.
 */
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../core/index.ts";
import { newAccount } from "../../test/memory/memory-client.ts";
import { eventually } from "../../test/support/eventually.ts";
import { createTestPlatform, type TestPlatform } from "../../test/support/platforms.ts";
import { vacuumAfterBursts, vacuumStatement } from "./postgres-vacuum.ts";

describe("vacuumAfterBursts", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function scheduled(execute = vi.fn(async (_sql: string) => {})) {
    vi.useFakeTimers();
    const warnings: unknown[] = [];
    const logger = { ...silentLogger, warn: (...args: unknown[]) => warnings.push(args) };
    const vacuum = vacuumAfterBursts({
      execute,
      logger: logger as typeof silentLogger,
      everyMemories: 100,
      quietMs: 1_000,
    });
    return { vacuum, execute, warnings };
  }

  it("waits for enough linked memories, then for the links to go quiet", async () => {
    const { vacuum, execute } = scheduled();
    vacuum.linked(60);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(execute).not.toHaveBeenCalled();
    vacuum.linked(40);
    await vi.advanceTimersByTimeAsync(900);
    // Another link run before the quiet spell ends puts it off.
    vacuum.linked(10);
    await vi.advanceTimersByTimeAsync(900);
    expect(execute).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(execute.mock.calls).toEqual([[vacuumStatement]]);
    // The count starts over.
    vacuum.linked(99);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(execute).toHaveBeenCalledTimes(1);
    vacuum.linked(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it("logs a failed vacuum and vacuums again after the next burst", async () => {
    const execute = vi.fn(async (_sql: string) => {});
    execute.mockRejectedValueOnce(new Error("connection lost"));
    const { vacuum, warnings } = scheduled(execute);
    vacuum.linked(100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(warnings).toHaveLength(1);
    vacuum.linked(100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(execute).toHaveBeenCalledTimes(2);
    expect(warnings).toHaveLength(1);
  });

  /** A vacuum started and not finished (`finish` ends it), and 100 more memories linked meanwhile. */
  async function duringOne() {
    let finish = () => {};
    const execute = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const { vacuum } = scheduled(execute);
    vacuum.linked(100);
    await vi.advanceTimersByTimeAsync(1_000);
    vacuum.linked(100);
    return { vacuum, execute, finish: () => finish() };
  }

  it("runs one vacuum at a time: links during one wait for the next quiet spell", async () => {
    const { execute, finish } = await duringOne();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(execute).toHaveBeenCalledTimes(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it("stop cancels the vacuum not started and waits for the one under way", async () => {
    const { vacuum, execute, finish } = await duringOne();
    let stopped = false;
    const stopping = vacuum.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(execute).toHaveBeenCalledTimes(1);
  });
});

describe("a PostgreSQL platform after an import", () => {
  let test: TestPlatform | undefined;
  afterEach(async () => {
    await test?.close();
  });

  it("vacuums and analyses the memory tables once 10,000 imported memories are linked", async () => {
    test = await createTestPlatform("postgresql", {
      environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "1000000" },
    });
    const client = new pg.Client({ connectionString: test.databaseUrl });
    await client.connect();
    try {
      const done = async (what: "last_vacuum" | "last_analyze") =>
        (
          await client.query<{ relname: string }>(
            `select relname from pg_stat_user_tables where ${what} is not null order by relname`,
          )
        ).rows.map((row) => row.relname);
      const vacuumed = () => done("last_vacuum");
      // Autovacuum would make the platform's vacuum pass over the tables it is working on.
      const tables = [
        "memories",
        "memory_counts",
        "memory_link_jobs",
        "memory_postings",
        "memory_relations",
        "memory_terms",
      ];
      for (const table of tables) await client.query(`alter table ${table} set (autovacuum_enabled = false)`);
      const { memory } = await newAccount(test);
      const batch = (start: number) =>
        Array.from({ length: 500 }, (_, index) => ({
          content: `Tidewater note ${start + index}: the harbour crane ${index % 7} lifts crate ${start + index}.`,
        }));
      for (let start = 0; start < 9_500; start += 500) await memory.import({ memories: batch(start) });
      await memory.search("harbour crane");
      expect(await vacuumed()).toEqual([]);
      expect(await done("last_analyze")).toEqual([]);
      await memory.import({ memories: batch(9_500) });
      // The link run that crosses 10,000 is followed, a second later, by the vacuum.
      // Each table is reported as its vacuum ends.
      await eventually(async () => ((await vacuumed()).length === tables.length ? true : undefined));
      expect(await vacuumed()).toEqual(tables);
      // And analysed (each table just after its vacuum): the planner's statistics count the burst's rows.
      await eventually(async () =>
        (await done("last_analyze")).length === tables.length ? true : undefined,
      );
      expect(await done("last_analyze")).toEqual(tables);
    } finally {
      await client.end();
    }
  }, 120_000);
});
