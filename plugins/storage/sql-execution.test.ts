/**
 * Statements from the `sql` tag on both real databases: values bound in order through nested
 * fragments, and each driver's placeholders written where the values go, never found by scanning
 * the text (a `?` in a literal or an operator is SQL, not a placeholder).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestPlatform, storageTargets, type TestPlatform } from "../../test/support/platforms.ts";
import { join, list, postgresText, raw, sql, sqliteText } from "./sql-statement.ts";

describe("the sql tag", () => {
  it("splices fragments, keeps the values in order and writes each driver's placeholders", () => {
    const scope = sql` and scope = ${"notes"}`;
    const statement = sql`select ${raw("id, scope")} from memories where account_id = ${"a"}${scope} and id in (${list(["x", "y"])}) limit ${5}`;
    expect(statement.values).toEqual(["a", "notes", "x", "y", 5]);
    expect(sqliteText(statement)).toBe(
      "select id, scope from memories where account_id = ? and scope = ? and id in (?, ?) limit ?",
    );
    expect(postgresText(statement)).toBe(
      "select id, scope from memories where account_id = $1 and scope = $2 and id in ($3, $4) limit $5",
    );
    const rows = join([sql`(${1}, ${2})`, sql`(${3}, ${4})`]);
    expect(postgresText(sql`values ${rows}`)).toBe("values ($1, $2), ($3, $4)");
    expect(sqliteText(list([]))).toBe("");
  });
});

describe.each(storageTargets)("bound statements on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform(target);
  });
  afterAll(() => test.close());

  // Regression: a regex turned every `?` of the text into `$n` on PostgreSQL, literals included.
  it("leaves a ? inside a string literal alone", async () => {
    const rows = await test.platform.storage.execute<{ mark: string; value: string }>(
      sql`select '?' as mark, ${"bound"} as value`,
    );
    expect(rows).toEqual([{ mark: "?", value: "bound" }]);
  });

  if (target === "postgresql")
    it("leaves jsonb's ?| operator alone", async () => {
      const [row] = await test.platform.storage.execute<{ found: boolean }>(
        sql`select ${JSON.stringify({ a: 1 })}::jsonb ?| ${["a", "b"]}::text[] as found`,
      );
      expect(row.found).toBe(true);
    });
});

// Regression: the serving connection emptied SQLite's log with its 5 s busy timeout, so a search
// thread's read in progress held the serving thread (every account's requests) asleep until it ended.
describe("emptying SQLite's log", () => {
  it("gives up at once while a reader uses the log, keeps the connection's timeout, and empties it after", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join: joinPath } = await import("node:path");
    const { default: Database } = await import("better-sqlite3");
    const { sqliteBoundSql } = await import("./sql-execution.ts");
    const directory = await mkdtemp(joinPath(tmpdir(), "cairn-empty-log-"));
    const file = joinPath(directory, "test.db");
    const database = new Database(file);
    const reader = new Database(file);
    try {
      for (const pragma of ["journal_mode = WAL", "wal_autocheckpoint = 0", "busy_timeout = 5000"]) {
        database.pragma(pragma);
      }
      database.exec("create table notes (text)");
      const insert = database.prepare("insert into notes values (?)");
      for (let index = 0; index < 200; index++) insert.run("x".repeat(1000));
      const bound = sqliteBoundSql(database as never);
      reader.exec("begin");
      reader.prepare("select count(*) from notes").get();
      const started = Date.now();
      expect(await bound.emptyLog?.(false)).toEqual({ busy: true });
      // Far below the 5 s the busy timeout would have slept.
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(database.pragma("busy_timeout", { simple: true })).toBe(5000);
      reader.exec("commit");
      expect(await bound.emptyLog?.(false)).toEqual({ busy: false });
      expect(database.pragma("wal_checkpoint(PASSIVE)")).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      reader.close();
      database.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
