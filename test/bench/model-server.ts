/**
 * The model server's throughput on this machine: embeddings per second for single inputs and for
 * batches of 32 and 128, one request at a time, default model and settings (eager load, CPU).
 * With each, the model server's CPU time per embedding (all its threads: ONNX Runtime's spin
 * while waiting for work counts). Then a search query sent as Cairn's server sends it (its embeddings
 * client, plugins/embeddings): the round trip's p50 / p90 and the CPU each side spends on it, this
 * process's and the model server's. Then a search query's time while a request of 128 memories
 * runs. Prints figures; run with `npx node test/bench/model-server.ts` (SVC_MODEL_* settings such
 * as SVC_MODEL_THREADS pass through to the server).
 */
import { cpus, loadavg } from "node:os";
import { createOpenAiCompatibleEmbeddings } from "../../plugins/embeddings/create-openai-compatible-embeddings.ts";
import {
  ensureModelServerEnvironment,
  type RunningModelServer,
  startModelServer,
} from "../model-server/model-server-process.ts";
import { cpuMilliseconds } from "../support/processes.ts";

// Memory-sized texts: one fact or a few sentences each, 5 to 60 words.
const subjects = ["The user", "Our team", "The billing service", "The staging database", "Alice"];
const facts = [
  "prefers dark mode in every editor",
  "moved the weekly planning meeting to Thursday mornings because Mondays were too crowded",
  "deploys on Fridays only after the full regression suite has passed and a second engineer has reviewed the change, which has kept incidents low for a year",
  "uses PostgreSQL 15",
  "asked for invoices to be sent as PDF attachments and not as links, since their accounting tool cannot follow links behind a login page and the finance team reconciles everything by hand at the end of each month",
];
const texts = Array.from(
  { length: 256 },
  (_, index) => `${subjects[index % subjects.length]} ${facts[(index * 3) % facts.length]} (note ${index}).`,
);

async function measure(server: RunningModelServer, batchSize: number, requests: number): Promise<number> {
  const started = performance.now();
  for (let request = 0; request < requests; request++) {
    const start = (request * batchSize) % texts.length;
    const input = Array.from({ length: batchSize }, (_, offset) => texts[(start + offset) % texts.length]);
    const response = await fetch(`${server.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });
    if (!response.ok) throw new Error(`embeddings failed: ${response.status} ${await response.text()}`);
    await response.json();
  }
  return (batchSize * requests * 1000) / (performance.now() - started);
}

ensureModelServerEnvironment();
const server = await startModelServer({ environment: { SVC_EAGER_LOAD: "true" } });
try {
  await measure(server, 8, 4); // warm-up: first runs allocate ONNX Runtime's buffers
  const health = await (await fetch(`${server.url}/health`)).json();
  console.log(`model server: ${health.model} on ${health.device}, max batch ${health.max_batch_size}`);
  // Other work on the machine moves these figures a lot: print how busy it was.
  console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} (1 min)`);
  for (const [batchSize, requests] of [
    [1, 200],
    [32, 16],
    [128, 6],
  ]) {
    const cpuBefore = await cpuMilliseconds(server.process.pid);
    const perSecond = await measure(server, batchSize, requests);
    const cpuEach = ((await cpuMilliseconds(server.process.pid)) - cpuBefore) / (batchSize * requests);
    console.log(
      `batch of ${String(batchSize).padStart(3)}: ${perSecond.toFixed(1).padStart(7)} embeddings/s, ${cpuEach.toFixed(1)} ms of CPU each`,
    );
  }
  // A search query as hybrid recall sends it, one at a time.
  const client = createOpenAiCompatibleEmbeddings({
    destination: "model_server",
    baseUrl: `${server.url}/v1`,
    apiKey: null,
    model: null,
    dimensions: null,
    timeoutSeconds: 10,
  });
  const query = (round: number) =>
    client.embed([`when is the planning meeting ${round}`], undefined, "query");
  for (let round = 0; round < 50; round++) await query(round);
  const rounds = 300;
  const roundTrips: number[] = [];
  const serverCpuBefore = await cpuMilliseconds(server.process.pid);
  const clientCpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await query(round);
    roundTrips.push(performance.now() - started);
  }
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const serverCpu = (await cpuMilliseconds(server.process.pid)) - serverCpuBefore;
  roundTrips.sort((a, b) => a - b);
  console.log(
    `a query through Cairn's client (${rounds}): p50 ${roundTrips[rounds / 2]?.toFixed(2)} ms, p90 ${roundTrips[(rounds * 9) / 10]?.toFixed(2)} ms; CPU each: this process ${((clientCpu.user + clientCpu.system) / 1000 / rounds).toFixed(2)} ms, the model server ${(serverCpu / rounds).toFixed(2)} ms`,
  );
  // A search query sent while the embedder's request of 128 memories runs (a hybrid recall during a
  // backfill): the model runs one at a time, the request's Python work holds the interpreter.
  const queryLatencies: number[] = [];
  for (let round = 0; round < 40; round++) {
    const documents = measure(server, 128, 1);
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: ["when is the planning meeting"], input_type: "query" }),
    });
    if (!response.ok) throw new Error(`embeddings failed: ${response.status} ${await response.text()}`);
    await response.json();
    queryLatencies.push(performance.now() - started);
    await documents;
  }
  queryLatencies.sort((a, b) => a - b);
  console.log(
    `a query beside a request of 128 memories (40 rounds): p50 ${queryLatencies[20]?.toFixed(1)} ms, p90 ${queryLatencies[36]?.toFixed(1)} ms, max ${queryLatencies[39]?.toFixed(1)} ms`,
  );
} finally {
  await server.stop();
}
