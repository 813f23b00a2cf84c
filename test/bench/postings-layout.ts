/**
 * What an import's postings cost the database by how they are laid out (issue 45 item 4), outside
 * the server: the benchmark corpus analysed by the server's tokenizer, `BENCH_MEMORIES` (default
 * 100,000) memories loaded in batches of 500 (one transaction each, as an import), then 20,000
 * more measured: CPU per memory (this process and, on PostgreSQL, the database's processes),
 * bytes written per memory (SQLite: /proc/self/io; PostgreSQL: its WAL), the postings' size; then
 * the time to read a common and a rare term's postings.
 *
 * - `term`: today's table (migrations 0006, 0014): a row per posting keyed (account, term, memory),
 *   written as the store writes it (SQLite: 250 to a statement, time-ordered ids, the writers' 2 MiB
 *   page cache; PostgreSQL: 1,000 to a statement, random ids). A batch dirties a leaf page per
 *   distinct term, and a page split in the middle of the tree leaves two half-empty pages.
 * - `term-64` (SQLite): the same with a 64 MiB page cache.
 * - `term-sorted`: today's table, each batch's postings inserted in key order (term, then memory),
 *   as the SQLite store writes a large transaction's since 2026-12-03 (5,000 to a statement).
 * - `segment`: each batch one segment, a row per (account, segment, term) holding the term's
 *   postings packed (ordinal in the segment's ids, count, length), keyed segment first so a batch
 *   appends; ten segments of a tier are merged into one of the next (merging counted in the write
 *   cost); a read probes every live segment, their list read beforehand.
 *
 * Only the postings' SQL: no HTTP, rows, relation detection or threads. Run with
 * `npx node test/bench/postings-layout.ts [sqlite|postgresql|both] [term|term-64|term-sorted|segment ...]`
 * (SQLite, every layout, by default; PostgreSQL needs `source .test-data/env`).
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { indexTermCounts } from "../../core/ports/memory-text.ts";
import { sqliteServingPragmas } from "../../plugins/storage/connection-settings.ts";
import { timeOrderedId } from "../../plugins/storage/memory-ids.ts";
import { memoryPostings } from "../../plugins/storage/migrations/0006-memory-postings.ts";
import { memoryPostingsCovering } from "../../plugins/storage/migrations/0014-memory-postings-covering.ts";
import { createTestDatabase } from "../support/platforms.ts";
import { postgresCpuMilliseconds } from "../support/processes.ts";
import { createCorpus } from "./memory-corpus.ts";

type Layout = "term" | "term-64" | "term-sorted" | "segment";
type Target = "sqlite" | "postgresql";
const loaded = Number(process.env.BENCH_MEMORIES ?? 100_000);
const measured = 20_000;
const batchSize = 500;
const mergeFactor = 10;
const account = crypto.randomUUID();

type Memory = { id: string; counts: Map<string, number>; length: number };
type Lists = Map<string, Uint32Array>;

/** The database under the layouts: statements, and what it has used so far. */
interface Store {
  begin(): Promise<void>;
  commit(): Promise<void>;
  rows(ids: string[]): Promise<void>;
  postings(postings: Array<[string, string, number, number]>): Promise<void>;
  readTerm(term: string): Promise<number>;
  segment(segment: number, tier: number, ids: string[], lists: Lists): Promise<void>;
  tier(tier: number): Promise<Array<{ segment: number; ids: string }>>;
  segmentLists(segment: number): Promise<Lists>;
  drop(segment: number): Promise<void>;
  live(): Promise<Array<{ segment: number; ids: string }>>;
  /** A term's postings in each of `segments` that has any: one probe per segment, one statement. */
  readSegments(segments: number[], term: string): Promise<Array<{ segment: number; postings: Uint32Array }>>;
  /** CPU milliseconds and bytes written so far; the postings' bytes. */
  used(): Promise<{ cpu: number; written: number }>;
  size(): Promise<number>;
  /** Before the reads: PostgreSQL's vacuum and analysis, as the server runs after a burst of writes. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const segmentTables = [
  `create table memory_segments (account_id varchar(36) not null, segment integer not null,
     term varchar(256) not null, postings BLOB not null, primary key (account_id, segment, term))`,
  `create table memory_segment_list (account_id varchar(36) not null, segment integer not null,
     tier integer not null, ids text not null, primary key (account_id, segment))`,
];
// Today's postings exactly as the migrations create them (the table, then its memory_id index;
// on PostgreSQL the primary key made covering).
const postingsDdl = (statements: readonly string[]) =>
  statements.filter(
    (statement) =>
      statement.startsWith("create table memory_postings") ||
      statement.includes("memory_postings_memory_index"),
  );
const postingsSqlite = postingsDdl(memoryPostings.sqlite);
const postingsPostgres = [...postingsDdl(memoryPostings.postgresql), ...memoryPostingsCovering.postgresql];
const unpack = (bytes: Uint8Array) =>
  new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const bytesOf = (list: Uint32Array) => Buffer.from(list.buffer, list.byteOffset, list.byteLength);

function sqliteStore(layout: Layout): Store {
  const file = join(tmpdir(), `cairn-bench-postings-${layout}-${process.pid}.db`);
  const database = new Database(file);
  for (const pragma of sqliteServingPragmas) database.pragma(pragma);
  if (layout === "term-64") database.pragma("cache_size = -65536");
  // The server checkpoints on its own thread at 16 MiB of log; here in process, at the same size.
  database.pragma("wal_autocheckpoint = 4096");
  database.exec("create table memories (id varchar(36) primary key, content text not null)");
  // Both layouts' tables (the statements are prepared up front), the unused one left empty.
  for (const table of segmentTables) database.exec(`${table.replace("BLOB", "blob")} without rowid`);
  for (const statement of postingsSqlite) database.exec(statement);
  const statement = (text: string) => database.prepare(text);
  const row = statement("insert into memories (id, content) values (?, 'x')");
  const posting = statement(`insert into memory_postings (account_id, term, memory_id, scope, tf, length)
          select ?, value ->> 0, value ->> 1, 'default', value ->> 2, value ->> 3 from json_each(?)`);
  const term = statement(
    "select memory_id, tf, length from memory_postings where account_id = ? and term = ?",
  );
  const segmentRow = statement(
    "insert into memory_segments (account_id, segment, term, postings) values (?, ?, ?, ?)",
  );
  const listed = statement(
    "insert into memory_segment_list (account_id, segment, tier, ids) values (?, ?, ?, ?)",
  );
  const tier = statement(
    "select segment, ids from memory_segment_list where account_id = ? and tier = ? order by segment",
  );
  const lists = statement("select term, postings from memory_segments where account_id = ? and segment = ?");
  const drop = statement("delete from memory_segments where account_id = ? and segment = ?");
  const unlist = statement("delete from memory_segment_list where account_id = ? and segment = ?");
  const live = statement("select segment, ids from memory_segment_list where account_id = ?");
  const probe = statement(
    "select postings from memory_segments where account_id = ? and segment = ? and term = ?",
  );
  const written = () =>
    Number(
      readFileSync("/proc/self/io", "utf8")
        .split("\n")
        .find((line) => line.startsWith("wchar:"))
        ?.split(" ")[1] ?? 0,
    );
  return {
    begin: async () => void database.exec("begin"),
    commit: async () => void database.exec("commit"),
    rows: async (ids) => {
      for (const id of ids) row.run(id);
    },
    postings: async (postings) => {
      for (let start = 0; start < postings.length; start += 250)
        posting.run(account, JSON.stringify(postings.slice(start, start + 250)));
    },
    readTerm: async (text) => term.all(account, text).length,
    segment: async (segment, level, ids, segmentLists) => {
      for (const [text, list] of segmentLists) segmentRow.run(account, segment, text, bytesOf(list));
      listed.run(account, segment, level, ids.join(" "));
    },
    tier: async (level) => tier.all(account, level) as Array<{ segment: number; ids: string }>,
    segmentLists: async (segment) =>
      new Map(
        (lists.all(account, segment) as Array<{ term: string; postings: Buffer }>).map((entry) => [
          entry.term,
          unpack(entry.postings),
        ]),
      ),
    drop: async (segment) => {
      drop.run(account, segment);
      unlist.run(account, segment);
    },
    live: async () => live.all(account) as Array<{ segment: number; ids: string }>,
    readSegments: async (segments, text) =>
      segments.flatMap((segment) => {
        const found = probe.get(account, segment, text) as { postings: Buffer } | undefined;
        return found ? [{ segment, postings: unpack(found.postings) }] : [];
      }),
    used: async () => {
      const cpu = process.cpuUsage();
      return { cpu: (cpu.user + cpu.system) / 1000, written: written() };
    },
    size: async () => (database.pragma("page_count", { simple: true }) as number) * 4096,
    settle: async () => {},
    close: async () => {
      database.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

async function postgresStore(layout: Layout): Promise<Store> {
  const created = await createTestDatabase();
  const client = new pg.Client({ connectionString: created.url });
  await client.connect();
  const query = async <T>(text: string, values: unknown[] = []) =>
    (await client.query(text, values)).rows as T[];
  await query("create table memories (id varchar(36) primary key, content text not null)");
  // Both layouts' tables, as on SQLite.
  for (const table of segmentTables) await query(table.replace("BLOB", "bytea"));
  for (const statement of postingsPostgres) await query(statement);
  const column = <T>(rows: T[][], index: number) => rows.map((entry) => entry[index]);
  return {
    begin: async () => void (await query("begin")),
    commit: async () => void (await query("commit")),
    rows: async (ids) =>
      void (await query(
        "insert into memories (id, content) select id, 'x' from unnest($1::varchar[]) as t(id)",
        [ids],
      )),
    postings: async (postings) => {
      for (let start = 0; start < postings.length; start += 1000) {
        const chunk = postings.slice(start, start + 1000);
        await query(
          `insert into memory_postings (account_id, term, memory_id, scope, tf, length)
           select $1, term, memory_id, 'default', tf, length from unnest($2::varchar[], $3::varchar[], $4::int[], $5::int[]) as t(term, memory_id, tf, length)`,
          [account, column(chunk, 0), column(chunk, 1), column(chunk, 2), column(chunk, 3)],
        );
      }
    },
    readTerm: async (term) =>
      (
        await query("select memory_id, tf, length from memory_postings where account_id = $1 and term = $2", [
          account,
          term,
        ])
      ).length,
    segment: async (segment, tier, ids, lists) => {
      const entries = [...lists];
      await query(
        "insert into memory_segments (account_id, segment, term, postings) select $1, $2, term, postings from unnest($3::varchar[], $4::bytea[]) as t(term, postings)",
        [account, segment, entries.map(([term]) => term), entries.map(([, list]) => bytesOf(list))],
      );
      await query(
        "insert into memory_segment_list (account_id, segment, tier, ids) values ($1, $2, $3, $4)",
        [account, segment, tier, ids.join(" ")],
      );
    },
    tier: (tier) =>
      query<{ segment: number; ids: string }>(
        "select segment, ids from memory_segment_list where account_id = $1 and tier = $2 order by segment",
        [account, tier],
      ),
    segmentLists: async (segment) =>
      new Map(
        (
          await query<{ term: string; postings: Buffer }>(
            "select term, postings from memory_segments where account_id = $1 and segment = $2",
            [account, segment],
          )
        ).map((entry) => [entry.term, unpack(entry.postings)]),
      ),
    drop: async (segment) => {
      await query("delete from memory_segments where account_id = $1 and segment = $2", [account, segment]);
      await query("delete from memory_segment_list where account_id = $1 and segment = $2", [
        account,
        segment,
      ]);
    },
    live: () =>
      query<{ segment: number; ids: string }>(
        "select segment, ids from memory_segment_list where account_id = $1",
        [account],
      ),
    readSegments: async (segments, term) =>
      (
        await query<{ segment: number; postings: Buffer }>(
          "select segment, postings from memory_segments where account_id = $1 and segment = any($2::int[]) and term = $3",
          [account, segments, term],
        )
      ).map((found) => ({ segment: found.segment, postings: unpack(found.postings) })),
    used: async () => {
      const cpu = process.cpuUsage();
      const [wal] = await query<{ wal_bytes: string }>("select wal_bytes from pg_stat_wal");
      return {
        cpu: (cpu.user + cpu.system) / 1000 + (await postgresCpuMilliseconds()),
        written: Number(wal.wal_bytes),
      };
    },
    size: async () => {
      const table = layout === "segment" ? "memory_segments" : "memory_postings";
      const [found] = await query<{ bytes: string }>("select pg_total_relation_size($1) as bytes", [table]);
      return Number(found.bytes);
    },
    settle: async () =>
      void (await query("vacuum (analyze) memories, memory_postings, memory_segments, memory_segment_list")),
    close: async () => {
      await client.end();
      await created.drop();
    },
  };
}

/** A batch's postings per term: (ordinal in the batch's ids, count, length) as 32-bit triples. */
function pack(memories: Memory[]): Lists {
  const lists = new Map<string, number[]>();
  memories.forEach((memory, ordinal) => {
    for (const [term, tf] of memory.counts) {
      const list = lists.get(term) ?? [];
      lists.set(term, list);
      list.push(ordinal, tf, memory.length);
    }
  });
  return new Map([...lists].map(([term, list]) => [term, Uint32Array.from(list)]));
}

function writer(layout: Layout, store: Store) {
  if (layout !== "segment")
    return async (memories: Memory[]) => {
      await store.begin();
      await store.rows(memories.map((memory) => memory.id));
      const postings = memories.flatMap((memory) =>
        [...memory.counts].map(
          ([term, tf]) => [term, memory.id, tf, memory.length] as [string, string, number, number],
        ),
      );
      // `term-sorted`: the batch's postings in key order, so each leaf page is changed once, in turn.
      if (layout === "term-sorted")
        postings.sort((first, second) => (first[0] < second[0] ? -1 : first[0] > second[0] ? 1 : 0));
      await store.postings(postings);
      await store.commit();
    };
  let next = 1;
  // Ten segments of a tier become one of the next: each posting is rewritten once per tier.
  const merge = async (tier: number) => {
    const segments = await store.tier(tier);
    if (segments.length < mergeFactor) return false;
    const ids: string[] = [];
    const merged = new Map<string, number[]>();
    for (const { segment, ids: text } of segments) {
      const offset = ids.length;
      ids.push(...text.split(" "));
      for (const [term, postings] of await store.segmentLists(segment)) {
        const list = merged.get(term) ?? [];
        merged.set(term, list);
        for (let index = 0; index < postings.length; index += 3)
          list.push(postings[index] + offset, postings[index + 1], postings[index + 2]);
      }
      await store.drop(segment);
    }
    await store.segment(
      next++,
      tier + 1,
      ids,
      new Map([...merged].map(([term, list]) => [term, Uint32Array.from(list)])),
    );
    return true;
  };
  return async (memories: Memory[]) => {
    await store.begin();
    const ids = memories.map((memory) => memory.id);
    await store.rows(ids);
    await store.segment(next++, 0, ids, pack(memories));
    for (let tier = 0; await merge(tier); tier++);
    await store.commit();
  };
}

async function reader(layout: Layout, store: Store) {
  if (layout !== "segment") return (term: string) => store.readTerm(term);
  // The live segments and their ids, as a search thread would keep them until the account's next write.
  const live = (await store.live()).map((entry) => ({ segment: entry.segment, ids: entry.ids.split(" ") }));
  const idsOf = new Map(live.map((entry) => [entry.segment, entry.ids]));
  return async (term: string) => {
    let count = 0;
    for (const { segment, postings } of await store.readSegments([...idsOf.keys()], term)) {
      const ids = idsOf.get(segment) ?? [];
      for (let index = 0; index < postings.length; index += 3) if (ids[postings[index]]) count++;
    }
    return count;
  };
}

async function run(target: Target, layout: Layout) {
  const corpus = createCorpus(42);
  const postgres = target === "postgresql";
  const store = postgres ? await postgresStore(layout) : sqliteStore(layout);
  try {
    const write = writer(layout, store);
    const frequencies = new Map<string, number>();
    const batch = () =>
      Array.from({ length: batchSize }, () => {
        const { counts, length } = indexTermCounts(corpus.memory().content);
        for (const term of counts.keys()) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
        return { id: postgres ? crypto.randomUUID() : timeOrderedId(), counts, length };
      });
    for (let done = 0; done < loaded; done += batchSize) await write(batch());
    const batches = Array.from({ length: measured / batchSize }, batch);
    const before = await store.used();
    const started = performance.now();
    for (const memories of batches) await write(memories);
    const wall = performance.now() - started;
    const after = await store.used();
    const each = (milliseconds: number) => ((milliseconds * 1000) / measured).toFixed(0);
    console.log(
      `${target} ${layout}: ${each(after.cpu - before.cpu)} µs of CPU a memory, ${each(wall)} µs wall, ${((after.written - before.written) / measured / 1024).toFixed(1)} KiB written a memory; postings ${((await store.size()) / 2 ** 20).toFixed(0)} MiB at ${loaded + measured} memories`,
    );
    await store.settle();
    const read = await reader(layout, store);
    const ranked = [...frequencies].sort((first, second) => second[1] - first[1]);
    for (const [label, [term]] of [
      ["common", ranked[10]],
      ["rare", ranked[Math.floor(ranked.length / 2)]],
    ] as const) {
      await read(term);
      const times: number[] = [];
      let found = 0;
      for (let round = 0; round < 50; round++) {
        const begin = performance.now();
        found = await read(term);
        times.push(performance.now() - begin);
      }
      times.sort((first, second) => first - second);
      console.log(`  read a ${label} term's postings (${found}): p50 ${times[25].toFixed(3)} ms`);
    }
  } finally {
    await store.close();
  }
}

const words = process.argv.slice(2);
const targets: Target[] = words.includes("both")
  ? ["sqlite", "postgresql"]
  : words.includes("postgresql")
    ? ["postgresql"]
    : ["sqlite"];
const chosen = words.filter((word): word is Layout =>
  ["term", "term-64", "term-sorted", "segment"].includes(word),
);
console.log(`postings layouts on ${new Date().toISOString()}, node ${process.version}`);
for (const target of targets)
  for (const layout of chosen.length > 0 ? chosen : (["term", "term-64", "term-sorted", "segment"] as const))
    if (!(target === "postgresql" && layout === "term-64")) await run(target, layout);
