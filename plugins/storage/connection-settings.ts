/**
 * What a database connection needs to know before it opens, for the server's storage
 * (create-storage.ts) and the search threads' readers (memory-reader.ts) alike. Kept apart from
 * create-storage.ts, which loads MikroORM: a search thread loads this module, not the ORM.
 */

/** The embedded database's file in the data directory (SVC_DATA_DIR). */
export const sqliteFile = (dataDir: string) => `${dataDir.replace(/\/+$/, "")}/cairn.db`;

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

/**
 * Every SQLite connection's reading settings (the server's and each search thread's): a 64 MiB
 * page cache (the 2 MiB default re-read index pages on every import batch) and the file mapped
 * up to SQLite's own ceiling (SQLITE_MAX_MMAP_SIZE, 2 GiB), so reads take no system call. A
 * 100,000-memory account's file is about 430 MiB: mapped up to 256 MiB, the rest was read a page
 * at a time, and a search thread spent about 10 % more per recall (test/bench/RESULTS.md).
 */
export const sqliteReadPragmas = ["busy_timeout = 5000", "cache_size = -65536", "mmap_size = 2147418112"];

/**
 * A search thread's connection (memory-reader.ts): the same, with an 8 MiB page cache. With the
 * file mapped, SQLite reads the database's pages from the map, not through its cache; only pages
 * read from the write-ahead log are copied in, and the checkpointer keeps the log short. At 64 MiB
 * the default two threads could hold 128 MiB for pages the map already holds
 * (docs/memory.md#what-the-server-keeps-in-memory).
 */
export const sqliteSearchPragmas = [...sqliteReadPragmas, "cache_size = -8192"];

/**
 * The writing connections' page cache, 2 MiB: they write, and read inside their transactions, from
 * the mapped file. A transaction's changed pages wait in this cache until they no longer fit, and
 * whatever is left is written to the log at commit: with 64 MiB, a 16 MiB import's commit took
 * 100-560 ms (then on the serving thread, holding every account's requests); with 2 MiB (commits
 * of 15-80 ms) the pages go out during the import's own statements, and the writer thread's
 * connection (sqlite-writer-thread.ts) holds the one write lock for shorter. A
 * statement's rollback journal (a multi-row insert's) is kept in memory rather than written to a
 * temporary file: 7 % of the serving thread's time during imports went to those writes.
 */
export const sqliteWriterPragmas = ["cache_size = -2048", "temp_store = MEMORY"];

/**
 * The serving connections' settings: the server's own (MikroORM's) and the writer thread's
 * (sqlite-writer-thread.ts). WAL for concurrent readers; secure_delete so forgotten data is
 * overwritten, not left in free pages.
 */
export const sqliteServingPragmas = [
  "journal_mode = WAL",
  "synchronous = NORMAL",
  "secure_delete = ON",
  "foreign_keys = ON",
  ...sqliteReadPragmas,
  ...sqliteWriterPragmas,
];
