/**
 * The checkpoint thread empties SQLite's log while the serving connection's writes wait
 * (sqlite-checkpoints.ts): the serving thread never copies frames itself, which held every
 * account's requests for 300-440 ms after an import. Real files, a real thread.
 */
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { eventually } from "../../test/support/eventually.ts";
import { startSqliteCheckpoints, walBytes } from "./sqlite-checkpoints.ts";

const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never;

describe("SQLite's checkpoints", () => {
  it("empty the log on their thread while writes wait", { timeout: 60_000 }, async () => {
    const directory = await mkdtemp(join(tmpdir(), "cairn-checkpoints-"));
    const sqlitePath = join(directory, "test.db");
    const writer = new Database(sqlitePath);
    const pragmas: string[] = [];
    try {
      writer.pragma("journal_mode = WAL");
      writer.exec("create table notes (text)");
      let waits = 0;
      let writesWaiting = false;
      const checkpoints = await startSqliteCheckpoints({
        sqlitePath,
        execute: async (statement) => {
          pragmas.push(statement);
          writer.exec(statement);
        },
        whileWritesWait: async (work) => {
          waits++;
          writesWaiting = true;
          try {
            return await work();
          } finally {
            writesWaiting = false;
          }
        },
        logger: silent,
      });
      const size = () => statSync(`${sqlitePath}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      // Past the thread's threshold, in transactions the way the server writes.
      const insert = writer.prepare("insert into notes values (?)");
      const text = "x".repeat(4000);
      for (let batch = 0; batch < 6; batch++) {
        expect(writesWaiting).toBe(false);
        writer.transaction(() => {
          for (let row = 0; row < 1000; row++) insert.run(text);
        })();
      }
      expect(size()).toBeGreaterThan(walBytes);
      expect(await eventually(async () => (size() === 0 ? true : undefined))).toBe(true);
      expect(waits).toBeGreaterThan(0);
      // The serving connection writes on after the thread emptied the log under it.
      insert.run("after");
      expect(writer.prepare("select count(*) as count from notes").get()).toEqual({ count: 6001 });
      await checkpoints.stop();
      // Only the automatic checkpoints were switched; the connection never ran a checkpoint itself.
      expect(pragmas).toEqual(["pragma wal_autocheckpoint = 0", "pragma wal_autocheckpoint = 1000"]);
    } finally {
      writer.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
