/**
 * Memory benchmark over HTTP against the real Node server (platform/serve.ts) in a child
 * process: loads BENCH_MEMORIES (default 100,000) realistic memories into one account through
 * POST /v1/memory/import (batches of 500), then prints recall p50/p95/p99 (sequential, and 8
 * concurrent clients in two rounds with the server's CPU per recall), remember throughput, recall
 * just after a remember (alternating, as an agent does), import throughput, the CPU each
 * imported and remembered memory costs (the server's threads, and PostgreSQL's processes, from
 * /proc, relation detection included: throughput alone shares two cores with the benchmark's
 * own clients) and the server's RSS, then the headline
 * figures of both databases side by side. Run with
 * `npx node test/bench/memory.ts [sqlite|postgresql|both]` (PostgreSQL needs
 * SVC_TEST_DATABASE_URL: `source .test-data/env`; a fresh database is created and dropped).
 * The server gets `npm start`'s Node flags, or BENCH_NODE_FLAGS ("" for none).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { createTestDatabase } from "../support/platforms.ts";
import {
  benchNodeFlags,
  cpuMilliseconds,
  postgresCpuMilliseconds,
  type RunningServer,
  signUpWithKey,
  startServer,
  threadCpuMilliseconds,
} from "../support/processes.ts";
import { type BenchMemory, createCorpus } from "./memory-corpus.ts";

const root = resolve(import.meta.dirname, "../..");
const memoryCount = Number(process.env.BENCH_MEMORIES ?? 100_000);
const batchSize = 500;
const importClients = 2;
const recallQueries = 1_000;
const concurrentClients = 8;
const rememberRequests = 2_000;
const rememberClients = 8;
const alternatingRounds = 300;

interface Client {
  baseUrl: string;
  key: string;
}

async function call(client: Client, path: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${client.baseUrl}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${client.key}`,
      ...(init.json === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const body = await response.text();
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${body.slice(0, 300)}`);
  return body;
}

async function signUp(baseUrl: string): Promise<Client> {
  const { key } = await signUpWithKey(baseUrl, "bench@example.com");
  return { baseUrl, key };
}

/** Runs `count` jobs over `clients` parallel workers; returns each job's latency in ms. */
async function runClients(count: number, clients: number, job: (index: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        const index = next++;
        const begin = performance.now();
        await job(index);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/**
 * How long after the last write answered the relation-detection queue is empty: counted in the
 * server's database (a read of the account would link what is left itself, and /metrics reads
 * its gauges at most every 10 s).
 */
async function settled(queued: () => Promise<number>): Promise<string> {
  const started = performance.now();
  while ((await queued()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  return `${((performance.now() - started) / 1000).toFixed(2)} s`;
}

/** The server's relation-detection queue, read beside it: its SQLite file or its PostgreSQL database. */
async function linkQueue(dataDir: string, databaseUrl: string | undefined) {
  const statement = "select count(*) as queued from memory_link_jobs";
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return {
      queued: async () => Number((await client.query(statement)).rows[0].queued),
      close: () => client.end(),
    };
  }
  const database = new Database(join(dataDir, "cairn.db"), { readonly: true, fileMustExist: true });
  return {
    queued: async () => Number((database.prepare(statement).get() as { queued: number }).queued),
    close: async () => database.close(),
  };
}

/** The server process's resident memory, from /proc. */
async function residentMegabytes(pid: number | undefined): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kilobytes = Number(status.match(/^VmRSS:\s+(\d+)/m)?.[1] ?? Number.NaN);
  return `${(kilobytes / 1024).toFixed(0)} MiB`;
}

/**
 * CPU spent by the server (all its threads) and, on PostgreSQL, by the database, per item; then
 * the server's threads that spent at least 5 % of it, in µs per item (by "tid name": in an import
 * on SQLite the busiest WorkerThread is the writer, the next the relation thread, the third the
 * log's checkpoints; V8Worker threads are the collector's helpers, summed).
 */
async function cpuMeter(pid: number | undefined, database: boolean) {
  const [server, postgres] = [await cpuMilliseconds(pid), database ? await postgresCpuMilliseconds() : 0];
  const threadsBefore = await threadCpuMilliseconds(pid);
  return async (items: number) => {
    const serverEach = ((await cpuMilliseconds(pid)) - server) / items;
    const postgresEach = database ? ((await postgresCpuMilliseconds()) - postgres) / items : 0;
    const spent = new Map<string, number>();
    for (const [thread, milliseconds] of await threadCpuMilliseconds(pid)) {
      const name = thread.endsWith(" V8Worker") ? "V8Worker (all)" : thread;
      spent.set(name, (spent.get(name) ?? 0) + milliseconds - (threadsBefore.get(thread) ?? 0));
    }
    const threads = [...spent]
      .filter(([, milliseconds]) => milliseconds / items >= 0.05 * serverEach)
      .sort((first, second) => second[1] - first[1])
      .map(([name, milliseconds]) => `${name} ${((milliseconds * 1000) / items).toFixed(0)} µs`);
    return {
      serverEach,
      postgresEach,
      text: `server CPU ${serverEach.toFixed(3)} ms${database ? ` + PostgreSQL ${postgresEach.toFixed(3)} ms` : ""} per memory, relation detection included (${threads.join(", ")})`,
    };
  };
}

/** Per target, the headline figures, printed side by side at the end. */
const summary = new Map<string, Record<string, string>>();

function percentiles(latencies: number[]) {
  const sorted = [...latencies].sort((first, second) => first - second);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
  return `p50 ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms`;
}

async function bench(target: "sqlite" | "postgresql") {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-memory-"));
  const database = target === "postgresql" ? await createTestDatabase() : undefined;
  let server: RunningServer | undefined;
  let queue: Awaited<ReturnType<typeof linkQueue>> | undefined;
  try {
    process.chdir(root);
    server = await startServer(process.execPath, [...benchNodeFlags(), "platform/serve.ts"], {
      SVC_DATA_DIR: dataDir,
      SVC_JWT_SECRET: "bench-secret-bench-secret-bench-secret-0123",
      SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000",
      SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      SVC_LOG_LEVEL: "warn",
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    });
    const client = await signUp(server.baseUrl);
    queue = await linkQueue(dataDir, database?.url);
    const corpus = createCorpus(42);
    console.log(`\n== ${target}: ${memoryCount} memories, server pid ${server.process.pid}`);

    const batches: BenchMemory[][] = [];
    for (let start = 0; start < memoryCount; start += batchSize) {
      batches.push(Array.from({ length: Math.min(batchSize, memoryCount - start) }, () => corpus.memory()));
    }
    const importCpu = await cpuMeter(server.process.pid, database !== undefined);
    const imported = await runClients(batches.length, importClients, (index) =>
      call(client, "/v1/memory/import", { method: "POST", json: { memories: batches[index] } }),
    );
    console.log(
      `import: ${memoryCount} memories in ${imported.seconds.toFixed(1)} s = ${(memoryCount / imported.seconds).toFixed(0)} memories/s (batch ${percentiles(imported.latencies)})`,
    );
    const importLinked = await settled(queue.queued);
    console.log(`  relation detection of the import caught up ${importLinked} after its last answer`);
    const importCost = await importCpu(memoryCount);
    console.log(`  import: ${importCost.text}`);

    // The floor under every figure below: HTTP, API-key auth and one primary-key read.
    const floor = await runClients(1_000, 1, async () => {
      const response = await fetch(`${client.baseUrl}/v1/memory/${crypto.randomUUID()}`, {
        headers: { authorization: `Bearer ${client.key}` },
      });
      if (response.status !== 404) throw new Error(`expected 404, got ${response.status}`);
      await response.text();
    });
    console.log(`floor, GET /v1/memory/{unknown id} sequential: ${percentiles(floor.latencies)}`);

    const queries = Array.from({ length: recallQueries }, () => corpus.query());
    const search = async (index: number) => {
      const { q, scope } = queries[index % queries.length];
      const parameters = new URLSearchParams({ q, ...(scope ? { scope } : {}) });
      return call(client, `/v1/memory/search?${parameters}`);
    };
    await runClients(100, 1, search);
    let found = 0;
    for (let index = 0; index < 50; index++) {
      if ((JSON.parse(await search(index)) as { memories: unknown[] }).memories.length > 0) found++;
    }
    const sequential = await runClients(recallQueries, 1, search);
    console.log(`recall, sequential: ${percentiles(sequential.latencies)} (${found}/50 queries find rows)`);
    // Two rounds of the same 2,000 recalls: the first after one sequential pass, while each search
    // thread's cache (core/memory/recall-cache.ts) still fills; the second with them filled.
    const rounds: number[] = [];
    for (const round of ["first", "second"]) {
      const cpuBefore = await cpuMilliseconds(server.process.pid);
      const parallel = await runClients(recallQueries * 2, concurrentClients, search);
      const cpuPerRecall = ((await cpuMilliseconds(server.process.pid)) - cpuBefore) / (recallQueries * 2);
      rounds.push((recallQueries * 2) / parallel.seconds);
      console.log(
        `recall, ${concurrentClients} clients, ${round} round: ${percentiles(parallel.latencies)}, ${(rounds.at(-1) as number).toFixed(0)} requests/s, server CPU ${cpuPerRecall.toFixed(2)} ms per recall`,
      );
    }

    const fresh = Array.from({ length: rememberRequests }, () => corpus.memory());
    const rememberCpu = await cpuMeter(server.process.pid, database !== undefined);
    const remembered = await runClients(rememberRequests, rememberClients, (index) =>
      call(client, "/v1/memory", { method: "POST", json: fresh[index] }),
    );
    console.log(
      `remember, ${rememberClients} clients: ${rememberRequests} in ${remembered.seconds.toFixed(2)} s = ${(rememberRequests / remembered.seconds).toFixed(0)} requests/s (${percentiles(remembered.latencies)})`,
    );
    const rememberLinked = await settled(queue.queued);
    console.log(`  relation detection of the remembers caught up ${rememberLinked} after the last answer`);
    const rememberCost = await rememberCpu(rememberRequests);
    console.log(`  remember: ${rememberCost.text}`);

    // An agent's own pattern: it remembers, then recalls. Each recall meets the account at a new
    // version (every cache read anew, the write linked first).
    const written = Array.from({ length: alternatingRounds }, () => corpus.memory());
    const alternating: number[] = [];
    for (let index = 0; index < alternatingRounds; index++) {
      await call(client, "/v1/memory", { method: "POST", json: written[index] });
      const begin = performance.now();
      await search(index);
      alternating.push(performance.now() - begin);
    }
    console.log(`recall just after a remember, sequential: ${percentiles(alternating)}`);
    const rss = await residentMegabytes(server.process.pid);
    console.log(`server RSS after all of it: ${rss}`);
    const p95 = (latencies: number[]) =>
      `${latencies.toSorted((a, b) => a - b)[Math.floor(latencies.length * 0.95)].toFixed(1)} ms`;
    summary.set(target, {
      "recall p95, sequential (≤ 10 ms)": p95(sequential.latencies),
      "recalls/s, 8 clients, first / second round (≥ 400 SQLite)": rounds
        .map((perSecond) => perSecond.toFixed(0))
        .join(" / "),
      "remember/s, 8 clients (≥ 3,000)": (rememberRequests / remembered.seconds).toFixed(0),
      "import/s (≥ 30,000 SQLite, ≥ 10,000 PostgreSQL)": (memoryCount / imported.seconds).toFixed(0),
      "CPU ms per imported memory, server + database": (
        importCost.serverEach + importCost.postgresEach
      ).toFixed(3),
      "CPU ms per remember, server + database": (rememberCost.serverEach + rememberCost.postgresEach).toFixed(
        3,
      ),
      "relations caught up after the remembers": rememberLinked,
      "recall p95 just after a remember": p95(alternating),
      "server RSS": rss,
    });
  } finally {
    await queue?.close();
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const choice = process.argv[2] ?? "both";
if (!["sqlite", "postgresql", "both"].includes(choice)) {
  console.error("usage: npx node test/bench/memory.ts [sqlite|postgresql|both]");
  process.exit(2);
}
console.log(`memory bench on ${new Date().toISOString()}, node ${process.version}`);
for (const target of ["sqlite", "postgresql"] as const) {
  if (choice === target || choice === "both") await bench(target);
}
console.log(`\n== side by side, ${memoryCount} memories`);
const targets = [...summary.keys()];
console.log(["figure".padEnd(58), ...targets.map((target) => target.padStart(12))].join(""));
for (const figure of Object.keys(summary.get(targets[0]) ?? {})) {
  console.log(
    [figure.padEnd(58), ...targets.map((target) => (summary.get(target)?.[figure] ?? "").padStart(12))].join(
      "",
    ),
  );
}
