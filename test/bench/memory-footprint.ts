/**
 * Where the server's memory goes as an account grows (issue 45): starts the real Node server
 * (platform/serve.ts) on SQLite in a child process, imports BENCH_MEMORIES (default 100,000)
 * memories of memory-corpus.ts into one account, then runs test/bench/memory.ts's workload
 * (1,000 sequential recalls, two rounds of 2,000 over 8 clients, 2,000 remembers over 8 clients,
 * 300 remember/recall rounds), then waits BENCH_IDLE_SECONDS (default 30: each thread trims its
 * heap once it has been quiet for 5-10 s, lib/idle-heap-trim). After each step it prints the
 * server's resident memory from /proc, anonymous (heaps, caches, SQLite's page caches: what the
 * process holds) apart from file-backed (the mapped database and code: page cache the kernel
 * takes back under pressure), and each
 * thread's V8 heap after a full collection (memory-footprint-probe.ts, preloaded). Run with
 * `npx node test/bench/memory-footprint.ts`; server settings pass through the environment
 * (SVC_MEMORY_SEARCH_THREADS=0, say); Node's flags are `npm start`'s unless BENCH_NODE_FLAGS
 * gives others ("" for none).
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { benchNodeFlags, signUpWithKey, startServer } from "../support/processes.ts";
import { createCorpus } from "./memory-corpus.ts";

const root = resolve(import.meta.dirname, "../..");
const memoryCount = Number(process.env.BENCH_MEMORIES ?? 100_000);
const batchSize = 500;
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);

const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-footprint-"));
const probeOutput = join(dataDir, "footprint.json");
process.chdir(root);
const server = await startServer(
  process.execPath,
  [
    ...benchNodeFlags(),
    "--expose-gc",
    "--import",
    "./test/bench/memory-footprint-probe.ts",
    "platform/serve.ts",
  ],
  {
    SVC_DATA_DIR: dataDir,
    SVC_JWT_SECRET: "bench-secret-bench-secret-bench-secret-0123",
    SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000",
    SVC_LOG_LEVEL: "warn",
    CAIRN_FOOTPRINT_OUT: probeOutput,
  },
);
const pid = server.process.pid as number;
const { key } = await signUpWithKey(server.baseUrl, "footprint@example.com");

async function call(path: string, json?: unknown) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body.slice(0, 300)}`);
  return body;
}

async function runClients(count: number, clients: number, job: (index: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** Until relation detection has nothing queued, counted in the server's database file. */
async function settled() {
  const database = new Database(join(dataDir, "cairn.db"), { readonly: true, fileMustExist: true });
  const queued = database.prepare("select count(*) as queued from memory_link_jobs");
  while ((queued.get() as { queued: number }).queued > 0)
    await new Promise((resolve) => setTimeout(resolve, 100));
  database.close();
}

interface Heap {
  usedMiB: number;
  totalMiB: number;
  externalMiB: number;
  mallocedMiB: number;
}

async function report(step: string) {
  const before = await stat(probeOutput).catch(() => undefined);
  process.kill(pid, "SIGUSR2");
  let probe:
    | {
        main: Heap;
        mainSpaces: Record<string, number>;
        arrayBuffersMiB: number;
        workers: Array<Heap & { entry: string; counted: Record<string, number> }>;
      }
    | undefined;
  for (let attempt = 0; attempt < 100 && probe === undefined; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await stat(probeOutput).catch(() => undefined);
    if (now && now.mtimeMs !== before?.mtimeMs) probe = JSON.parse(await readFile(probeOutput, "utf8"));
  }
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))?.[1]) / 1024;
  const database = await stat(join(dataDir, "cairn.db"));
  console.log(
    `${step}: RSS ${field("VmRSS").toFixed(0)} MiB (anonymous ${field("RssAnon").toFixed(0)}, file ${field("RssFile").toFixed(0)}), ${status.match(/^Threads:\s+(\d+)/m)?.[1]} threads, database file ${(database.size / 1024 / 1024).toFixed(0)} MiB`,
  );
  if (!probe) return console.log("  (no heap figures: the probe did not answer)");
  const line = (name: string, heap: Heap) =>
    `  ${name.padEnd(28)} V8 heap used ${heap.usedMiB.toFixed(1).padStart(6)} of ${heap.totalMiB.toFixed(1).padStart(6)} MiB, external ${heap.externalMiB.toFixed(1)} MiB`;
  console.log(line("main thread", probe.main));
  const spaces = Object.entries(probe.mainSpaces).filter(([, size]) => size >= 1);
  console.log(`    its spaces: ${spaces.map(([name, size]) => `${name} ${size} MiB`).join(", ")}`);
  for (const worker of probe.workers) {
    console.log(line(worker.entry, worker));
    const counted = Object.entries(worker.counted).filter(([, size]) => size > 0);
    if (counted.length > 0)
      console.log(`    its caches count: ${counted.map(([name, size]) => `${name} ${size} MiB`).join(", ")}`);
  }
  const heaps = [probe.main, ...probe.workers].reduce((sum, heap) => sum + heap.totalMiB, 0);
  console.log(
    `  all V8 heaps ${heaps.toFixed(0)} MiB; anonymous memory outside them (SQLite page caches, malloc, stacks, code) ${(field("RssAnon") - heaps).toFixed(0)} MiB`,
  );
}

try {
  const corpus = createCorpus(42);
  console.log(
    `memory footprint, ${memoryCount} memories, SQLite, server pid ${pid}, node ${process.version}`,
  );
  await report("at start");
  const batches = Math.ceil(memoryCount / batchSize);
  await runClients(batches, 2, (index) =>
    call("/v1/memory/import", {
      memories: Array.from({ length: Math.min(batchSize, memoryCount - index * batchSize) }, () =>
        corpus.memory(),
      ),
    }),
  );
  await settled();
  await report(`after importing ${memoryCount}`);
  const queries = Array.from({ length: 1_000 }, () => corpus.query());
  const search = (index: number) => {
    const { q, scope } = queries[index % queries.length];
    return call(`/v1/memory/search?${new URLSearchParams({ q, ...(scope ? { scope } : {}) })}`);
  };
  await runClients(1_000, 1, search);
  await report("after 1,000 sequential recalls");
  await runClients(4_000, 8, search);
  await report("after 4,000 recalls over 8 clients");
  await runClients(2_000, 8, () => call("/v1/memory", corpus.memory()));
  await settled();
  for (let index = 0; index < 300; index++) {
    await call("/v1/memory", corpus.memory());
    await search(index);
  }
  await report("after 2,300 remembers (memory.ts's whole run)");
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  await report(`after ${idleSeconds} s idle`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
