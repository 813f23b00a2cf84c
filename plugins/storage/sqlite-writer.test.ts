/**
 * The SQLite writer thread (sqlite-writer.ts) behind sqliteBoundSql: a large transaction runs
 * there, so the serving thread's event loop keeps turning while SQLite works; a small one runs on
 * the serving connection. Real better-sqlite3 connections to one file, a real worker thread.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BoundSql, type SqliteDatabase, sqliteBoundSql } from "./sql-execution.ts";
import { sql } from "./sql-statement.ts";
import { type SqliteWriter, startSqliteWriter } from "./sqlite-writer.ts";

// Seconds of SQLite's own work in one statement, on whichever connection runs it.
const slowCount = sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${3_000_000})
  select count(*) as n from c`;

/** Runs `work`, counting the turns the event loop takes meanwhile. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

describe("the SQLite writer thread", () => {
  let directory: string;
  let database: Database.Database;
  let bound: BoundSql;
  const writers: SqliteWriter[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "cairn-writer-"));
    const file = join(directory, "test.db");
    database = new Database(file);
    database.pragma("journal_mode = WAL");
    database.exec("create table notes (id integer primary key, text text not null)");
    bound = sqliteBoundSql(database as unknown as SqliteDatabase, undefined, undefined, async () => {
      const writer = await startSqliteWriter(file);
      writers.push(writer);
      return writer;
    });
  });
  afterAll(async () => {
    await bound.close();
    database.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("starts no thread before the first large transaction", async () => {
    await bound.runTransaction((execute) => execute(sql`select 1 as one`));
    await bound.execute(sql`insert into notes (id, text) values (${100}, ${"small"})`);
    expect(writers).toHaveLength(0);
    await bound.execute(sql`delete from notes where id = ${100}`);
  });

  it("runs a large transaction's statements off the serving thread, a small one's on it", async () => {
    const large = await turnsDuring(() =>
      bound.runTransaction((execute) => execute(slowCount), { large: true }),
    );
    // The loop turned throughout the large one; the small one held it from start to end.
    expect(large).toBeGreaterThan(10);
    expect(await turnsDuring(() => bound.runTransaction((execute) => execute(slowCount)))).toBe(0);
  });

  it("commits what a large transaction wrote, for the serving connection to read", async () => {
    const rows = await bound.runTransaction(
      async (execute) => {
        await execute(sql`insert into notes (id, text) values (${1}, ${"first"}), (${2}, ${"second"})`);
        return execute<{ text: string }>(sql`select text from notes order by id`);
      },
      { large: true },
    );
    expect(rows).toEqual([{ text: "first" }, { text: "second" }]);
    expect(database.prepare("select count(*) as n from notes").get()).toEqual({ n: 2 });
  });

  it("fails with SQLite's code and rolls the whole transaction back", async () => {
    const failing = bound.runTransaction(
      async (execute) => {
        await execute(sql`insert into notes (id, text) values (${3}, ${"third"})`);
        await execute(sql`insert into notes (id, text) values (${1}, ${"again"})`);
      },
      { large: true },
    );
    await expect(failing).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    expect(database.prepare("select id from notes order by id").all()).toEqual([{ id: 1 }, { id: 2 }]);
    // The writer is free again: the next transaction runs.
    await bound.runTransaction((execute) => execute(sql`delete from notes where id = ${2}`), { large: true });
    expect(database.prepare("select id from notes").all()).toEqual([{ id: 1 }]);
  });

  it("sets a pragma given outside a transaction on both writing connections", async () => {
    await bound.execute("pragma wal_autocheckpoint = 0");
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const [onWriter] = await bound.runTransaction((execute) => execute("pragma wal_autocheckpoint"), {
      large: true,
    });
    expect(onWriter).toEqual({ wal_autocheckpoint: 0 });
  });

  it("fails the rest of a transaction whose writer ended, and keeps none of it", async () => {
    const failing = bound.runTransaction(
      async (execute) => {
        await execute(sql`insert into notes (id, text) values (${10}, ${"lost"})`);
        await writers.at(-1)?.close();
        await execute(sql`insert into notes (id, text) values (${11}, ${"never"})`);
      },
      { large: true },
    );
    await expect(failing).rejects.toThrow(/writer thread has ended/);
    expect(database.prepare("select id from notes where id >= 10").all()).toEqual([]);
  });

  it("starts the writer again once it has ended, with the pragmas given before", async () => {
    await writers.at(-1)?.close();
    const started = writers.length;
    await bound.execute("pragma wal_autocheckpoint = 7");
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(7);
    const [onWriter] = await bound.runTransaction((execute) => execute("pragma wal_autocheckpoint"), {
      large: true,
    });
    expect(writers).toHaveLength(started + 1);
    expect(onWriter).toEqual({ wal_autocheckpoint: 7 });
  });
});
