/**
 * Semantic search benchmark on PostgreSQL (issue 13). Loads --memories (default 100,000) corpus
 * memories into one account of a fresh database, embeds them with the real embedder and model
 * server, then prints: the model server's embeddings per second (batches as the embedder sends
 * them), the HNSW index build time, recall@10 against exact search at several ef_search
 * values (the store's search, which compares a small scope exactly, and the HNSW statement alone
 * for every query: "proposed nearest", a rewrite that keeps the HNSW scan once the tables are
 * analysed), recall query latency through GET /v1/memory/search on a server with embeddings on
 * (query embedding included) for the account and for a smaller second account beside it
 * (--small-account, default 5,000 memories: the index holds every account's vectors), and that
 * server's RSS. Vectors are cached under
 * .test-data/bench-semantic by corpus, seed and model id, so reruns skip the embedding (the output
 * says so). Run: `source .test-data/env && export SVC_TEST_DATABASE_URL &&
 * npx node test/bench/semantic.ts [--memories 10000] [--queries 200] [--corpus natural]
 * [--keep-database | --database URL]`. Exits 0 whatever the figures.
 */
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { silentLogger } from "../../core/index.ts";
import { createMemoryEmbedder } from "../../core/memory/embedder.ts";
import { createEmbeddingProvider } from "../../plugins/embeddings/index.ts";
import { hnswIndexName, hnswIndexStatement } from "../../plugins/storage/embedding-paths.ts";
import { ensureModelServerEnvironment, startModelServer } from "../model-server/model-server-process.ts";
import {
  createAccountWithKey,
  createTestDatabase,
  createTestPlatform,
  logInWithKey,
  type TestPlatform,
} from "../support/platforms.ts";
import {
  cpuMilliseconds,
  postgresCpuMilliseconds,
  type RunningServer,
  startServer,
} from "../support/processes.ts";
import { type BenchMemory, createCorpus } from "./memory-corpus.ts";
import { percentiles, residentMegabytes } from "./semantic/figures.ts";
import { exactNearest, hnswRecall, indexScans } from "./semantic/hnsw-recall.ts";
import { loadNaturalCorpus, naturalMemories } from "./semantic/natural-corpus.ts";
import { proposedNearestRecall } from "./semantic/proposed-nearest.ts";
import { cachingProvider, loadVectorCache, saveVectorCache } from "./semantic/vector-cache.ts";

const { values: options } = parseArgs({
  options: {
    memories: { type: "string", default: "100000" },
    queries: { type: "string", default: "200" },
    "ef-search": { type: "string", default: "40,100,200,400" },
    latency: { type: "string", default: "500" },
    "small-account": { type: "string", default: "5000" },
    // Remembers into the large account with embeddings on, one at a time (forgotten after).
    remembers: { type: "string", default: "100" },
    // generated (memory-corpus.ts) or natural (semantic/natural-corpus.ts: English sentences).
    corpus: { type: "string", default: "generated" },
    // Leave the database (its URL printed) for a later run's --database.
    "keep-database": { type: "boolean", default: false },
    // A database a run with --keep-database left, with the same corpus and counts: loading,
    // embedding and the index build are skipped, the searches measured again.
    database: { type: "string" },
  },
});
const memoryCount = Number(options.memories);
const rememberCount = Number(options.remembers);
const queryCount = Number(options.queries);
const efSearchValues = options["ef-search"].split(",").map(Number);
const latencyQueries = Number(options.latency);
// A second account beside the first (0: none): the HNSW index holds every account's vectors.
const smallCount = Number(options["small-account"]);
const seed = 42;
const importBatch = 500;
const secrets = {
  SVC_JWT_SECRET: "bench-secret-bench-secret-bench-secret-0123",
  SVC_SECRETS_KEY: "bench-secrets-key-bench-secrets-key-0123456",
  SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000",
  SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
};
/** The account of `email`: signed up, or on a reused database logged in; a new key either way. */
const benchAccount = (platform: TestPlatform, email: string) =>
  reused ? logInWithKey(platform, email) : createAccountWithKey(platform, email);
const load = () => `load average ${loadavg()[0].toFixed(1)} (1 min) on ${cpus().length} cores`;

console.log(`semantic bench on ${new Date().toISOString()}, node ${process.version}, ${load()}`);
ensureModelServerEnvironment();
const modelServer = await startModelServer({ environment: { SVC_EAGER_LOAD: "true" } });
const database = options.database
  ? { url: options.database, drop: async () => {} }
  : await createTestDatabase();
const reused = options.database !== undefined;
let server: RunningServer | undefined;
let dataDir: string | undefined;
try {
  const health = (await (await fetch(`${modelServer.url}/health`)).json()) as {
    model: string;
    device: string;
  };
  console.log(`model server: ${health.model} on ${health.device}`);
  const natural = options.corpus === "natural" ? await loadNaturalCorpus(seed) : null;
  if (natural === null && options.corpus !== "generated")
    throw new Error(`--corpus is generated or natural, not ${options.corpus}`);
  const corpus = createCorpus(seed);
  const memories = natural
    ? naturalMemories(natural, 0, memoryCount)
    : Array.from({ length: memoryCount }, () => corpus.memory());
  const queries = natural
    ? natural.queries.slice(0, Math.max(queryCount, latencyQueries))
    : Array.from({ length: Math.max(queryCount, latencyQueries) }, () => corpus.query());
  console.log(`corpus: ${options.corpus}`);

  // Loading: in process, embeddings off, so nothing embeds while the import runs.
  const loader = await createTestPlatform("postgresql", { databaseUrl: database.url, environment: secrets });
  const account = await benchAccount(loader, "bench-large@example.com");
  dataDir = loader.dataDir;
  /** Imports `rows` into the account of `key`, a batch at a time. */
  const importAll = async (key: string, rows: BenchMemory[]) => {
    for (let start = 0; start < rows.length; start += importBatch) {
      const response = await loader.request("/v1/memory/import", {
        method: "POST",
        credential: key,
        json: { memories: rows.slice(start, start + importBatch) },
      });
      if (!response.ok) throw new Error(`import failed: ${response.status} ${await response.text()}`);
    }
  };
  let started = performance.now();
  if (!reused) {
    await importAll(account.key, memories);
    console.log(`import: ${memoryCount} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const smallCorpus = createCorpus(seed + 1);
  const smallMemories = natural
    ? naturalMemories(natural, memoryCount, smallCount)
    : Array.from({ length: smallCount }, () => smallCorpus.memory());
  const smallQueries = natural
    ? queries.slice(0, latencyQueries)
    : Array.from({ length: latencyQueries }, () => smallCorpus.query());
  const small = await benchAccount(loader, "bench-small@example.com");
  if (!reused) await importAll(small.key, smallMemories);
  if (!reused && smallCount > 0)
    console.log(
      `  and ${smallCount} memories of a second account (${natural ? "the next sentences" : `corpus seed ${seed + 1}`})`,
    );

  // Embedding: the real embedder drains the real queue; the provider answers from the cache when it can.
  const embeddingConfig = {
    ...loader.config,
    SVC_MEMORY_EMBEDDINGS_ENABLED: true,
    SVC_MEMORY_EMBEDDING_BASE_URL: `${modelServer.url}/v1`,
    SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: 120,
  };
  const realProvider = createEmbeddingProvider(embeddingConfig);
  if (realProvider === null) throw new Error("embeddings are off");
  const cache = await loadVectorCache(`${natural ? "natural" : "seed"}-${seed}`, health.model);
  const { provider, counts } = cachingProvider(realProvider, cache);
  const embedder = createMemoryEmbedder({
    memories: loader.platform.storage.memories,
    provider,
    logger: silentLogger,
    clock: loader.platform.clock,
  });
  if (!reused) console.log(`embedding ${memoryCount + smallCount} memories (${load()})`);
  started = performance.now();
  await embedder.drain();
  const drainSeconds = (performance.now() - started) / 1000;
  const path = embedder.path();
  if (path === null) throw new Error("the embedder learned no path");
  await embedder.close();
  if (counts.computed > 0) {
    const perSecond = (counts.computed * 1000) / counts.milliseconds;
    console.log(
      `model server: ${counts.computed} texts in ${counts.requests} requests of up to ${realProvider.maxBatchSize} = ${perSecond.toFixed(0)} embeddings/s (${load()})`,
    );
    await saveVectorCache(cache);
  }
  if (counts.fromCache > 0) {
    console.log(`  ${counts.fromCache} vectors loaded from the cache ${cache.file}.f32 (not measured again)`);
  }
  if (!reused)
    console.log(
      `embedder drain (embedding + storing, HNSW index kept up row by row): ${drainSeconds.toFixed(1)} s = ${((memoryCount + smallCount) / drainSeconds).toFixed(0)} memories/s`,
    );

  // The index built in one go over every row, as after a restore or a model change.
  const admin = new pg.Client({ connectionString: database.url });
  if (reused) console.log(`reusing ${database.url}: its memories, vectors and index`);
  else
    try {
      await admin.connect();
      const settings = await admin.query(
        "select current_setting('maintenance_work_mem') as memory, current_setting('max_parallel_maintenance_workers') as workers",
      );
      await admin.query(`drop index ${hnswIndexName(path)}`);
      started = performance.now();
      await admin.query(hnswIndexStatement(path) as string);
      const buildSeconds = (performance.now() - started) / 1000;
      // The steady state: autovacuum analyses the tables some time after a load, and the plan of a
      // vector search changes with the statistics (an unanalysed memory_embeddings looks empty).
      await admin.query("analyze memories, memory_embeddings");
      const size = await admin.query("select pg_size_pretty(pg_relation_size($1)) as size", [
        hnswIndexName(path),
      ]);
      console.log(
        `HNSW index build over ${memoryCount + smallCount} rows: ${buildSeconds.toFixed(1)} s, ${size.rows[0].size} (maintenance_work_mem ${settings.rows[0].memory}, ${settings.rows[0].workers} parallel workers)`,
      );
    } finally {
      await admin.end();
    }

  // A fifth of the corpus's queries name a scope: the index then has to skip other scopes' rows.
  const recallQueries = queries.slice(0, queryCount);
  // Embedded as the server embeds a recall's query (a model with prompts gives it the query's).
  const queryVectors = (
    await realProvider.embed(
      recallQueries.map((query) => query.q),
      undefined,
      "query",
    )
  ).vectors;
  const vectorQueries = recallQueries.map((query, index) => ({
    vector: queryVectors[index] as Float32Array,
    scope: query.scope,
  }));
  const exact = await exactNearest(database.url, account.accountId, path, vectorQueries);
  const scansBefore = await indexScans(database.url, path);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const scoped = recallQueries.flatMap((query, index) => (query.scope ? [index] : []));
  for (const efSearch of efSearchValues) {
    const { recalls, latencies } = await hnswRecall(loader.platform.storage.memories, {
      accountId: account.accountId,
      path,
      queries: vectorQueries,
      exact,
      efSearch,
    });
    console.log(
      `vector search recall@10 vs exact (the store's: HNSW, small scopes compared exactly), ef_search ${efSearch}: ${mean(recalls).toFixed(4)} over ${queryCount} queries (${scoped.length} within one scope: ${mean(scoped.map((index) => recalls[index] as number)).toFixed(4)}; worst query ${Math.min(...recalls).toFixed(1)}), ${percentiles(latencies)}`,
    );
  }
  const scans = (await indexScans(database.url, path)) - scansBefore;
  console.log(
    `  the HNSW index was scanned ${scans} times for ${queryCount * efSearchValues.length} searches`,
  );
  for (const efSearch of efSearchValues) {
    const proposed = await proposedNearestRecall(database.url, {
      accountId: account.accountId,
      path,
      queries: vectorQueries,
      exact,
      efSearch,
    });
    console.log(
      `proposed nearest (exists … offset 0), ef_search ${efSearch}: recall@10 ${mean(proposed.recalls).toFixed(4)} (within one scope ${mean(scoped.map((index) => proposed.recalls[index] as number)).toFixed(4)}), ${proposed.planUsesIndex ? "HNSW scan" : "NO HNSW scan"}, SQL ${percentiles(proposed.latencies)}`,
    );
  }
  await loader.close();

  /**
   * Remembers into the large account with embeddings on, one at a time, each waited for until its
   * vector is stored: what a remember costs the server, PostgreSQL and the model server (the
   * embedder finding the written row, its embedding, the vector and its HNSW insert, relation
   * detection). Forgotten afterwards, so a kept database stays as it was.
   */
  async function measureRemembers(baseUrl: string, pid: number | undefined) {
    const headers = { authorization: `Bearer ${account.key}`, "content-type": "application/json" };
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const meters = () =>
      Promise.all([
        cpuMilliseconds(pid),
        postgresCpuMilliseconds(),
        cpuMilliseconds(modelServer.process.pid),
      ]);
    const ids: string[] = [];
    const latencies: number[] = [];
    const before = await meters();
    for (let index = 0; index < rememberCount; index++) {
      const begin = performance.now();
      const content = `Noted during the bench (${index}): ${queries[index % queries.length].q}`;
      const response = await fetch(`${baseUrl}/v1/memory`, {
        method: "POST",
        headers,
        body: JSON.stringify({ content }),
      });
      const body = (await response.json()) as { id?: string };
      if (response.status !== 201 || body.id === undefined)
        throw new Error(`remember failed: ${response.status} ${JSON.stringify(body)}`);
      ids.push(body.id);
      // Until its vector is stored (a poll every 10 ms: its own PostgreSQL time is in the figure).
      while (
        (await client.query("select 1 from memory_embeddings where memory_id = $1", [body.id])).rowCount === 0
      )
        await new Promise((resolve) => setTimeout(resolve, 10));
      latencies.push(performance.now() - begin);
    }
    const spent = (await meters()).map((total, index) => (total - (before[index] as number)) / rememberCount);
    const [serverEach, postgresEach, modelEach] = spent.map((each) => each.toFixed(1));
    console.log(
      `remember with embeddings on, one at a time, until its vector is stored: ${percentiles(latencies)} over ${rememberCount}; CPU per remember: server ${serverEach} ms, PostgreSQL ${postgresEach} ms, model server ${modelEach} ms (${load()})`,
    );
    for (const id of ids) await fetch(`${baseUrl}/v1/memory/${id}`, { method: "DELETE", headers });
    await client.end();
  }

  // The real path: a server with embeddings on, one query at a time, its embedding included.
  const embeddingLatencies: number[] = [];
  for (const { q } of queries.slice(0, 200)) {
    const begin = performance.now();
    await realProvider.embed([q], undefined, "query");
    embeddingLatencies.push(performance.now() - begin);
  }
  console.log(`query embedding alone (model server round trip): ${percentiles(embeddingLatencies)}`);
  // Twice on the same rows: embeddings on (the figure), then off (the lexical part alone).
  for (const embeddings of [true, false]) {
    server = await startServer(process.execPath, ["platform/serve.ts"], {
      ...secrets,
      SVC_DATA_DIR: dataDir,
      SVC_DATABASE_URL: database.url,
      SVC_LOG_LEVEL: "warn",
      SVC_MEMORY_EMBEDDINGS_ENABLED: String(embeddings),
      SVC_MEMORY_EMBEDDING_BASE_URL: `${modelServer.url}/v1`,
    });
    const baseUrl = server.baseUrl;
    const search = async (key: string, q: string, scope?: string) => {
      const parameters = new URLSearchParams({ q, ...(scope ? { scope } : {}) });
      const response = await fetch(`${baseUrl}/v1/memory/search?${parameters}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { memories?: unknown[]; warnings?: string[] };
      if (!response.ok) throw new Error(`search failed: ${response.status} ${JSON.stringify(body)}`);
      if (body.warnings?.length) throw new Error(`search warned: ${body.warnings.join("; ")}`);
      return body.memories?.length ?? 0;
    };
    const what = embeddings
      ? "hybrid, query embedding included"
      : "embeddings off: lexical only, for comparison";
    const measured = [
      { key: account.key, of: queries.slice(0, latencyQueries), label: "recall" },
      ...(smallCount > 0
        ? [
            {
              key: small.key,
              of: smallQueries,
              label: `recall of the second account's ${smallCount} memories`,
            },
          ]
        : []),
    ];
    for (const { key, of, label } of measured) {
      for (const { q, scope } of of.slice(0, 50)) await search(key, q, scope);
      const latencies: number[] = [];
      let answered = 0;
      for (const { q, scope } of of) {
        const begin = performance.now();
        if ((await search(key, q, scope)) > 0) answered++;
        latencies.push(performance.now() - begin);
      }
      console.log(
        `${label} (GET /v1/memory/search, ${what}), sequential: ${percentiles(latencies)} over ${of.length} queries, ${answered} with results (${load()})`,
      );
    }
    if (embeddings && rememberCount > 0) await measureRemembers(baseUrl, server.process.pid);
    console.log(`  server RSS: ${await residentMegabytes(server.process.pid)}`);
    await server.stop();
  }
} finally {
  await server?.stop();
  if (options["keep-database"]) console.log(`database kept: --database ${database.url}`);
  else await database.drop();
  await modelServer.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
