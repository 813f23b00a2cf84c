/**
 * Background-process output over Server-Sent Events against a real server with the local
 * bubblewrap runtime (issue 41), beside exec's figures on the same server:
 * - first byte: `BENCH_RUNS` (50) times, start `echo` as a process (`POST …/processes`) and open
 *   its stream with the JavaScript SDK's `streamProcess`; the time from the start request to the
 *   first output event the client parses (goal p50 < 20 ms), beside `exec echo` start → answer;
 * - throughput: a process writing 100 MiB to stdout, read through the stream from offset 0 to its
 *   `exit` event (goal ≥ 100 MiB/s), with the server process's CPU per MiB from /proc (its own
 *   threads only: the sandbox's helpers and the command are other processes). First on a server
 *   with the default output bound (`SVC_PROCESS_OUTPUT_BYTES`, 1 MiB, oldest bytes dropped), so
 *   bytes received against produced and any `truncated` event are printed; again with a reader
 *   that pauses 5 ms after each event, with the server's resident memory (the stream's answer
 *   queues the log's bytes without waiting for the client, so the slow reader loses nothing and
 *   the server holds what it has not taken); then on a server bounded at 128 MiB, where nothing
 *   can be dropped, once through the SDK and once by a client that only counts bytes (the rate
 *   the server relays); beside exec returning its maximum 1 MiB.
 * Prints figures, never fails on them.
 * Run: `node test/bench/process-stream.ts` (as root, with bwrap installed).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CairnClient } from "../../sdks/js/src/index.ts";
import { cpuMilliseconds, type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const runs = Number(process.env.BENCH_RUNS ?? 50);
const mebibyte = 1_048_576;
const streamBytes = 100 * mebibyte;
const writeCommand = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' a`;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

interface Bench {
  server: RunningServer;
  client: CairnClient;
  key: string;
  sessionId: string;
}

async function withServer<T>(outputBytes: number | null, work: (bench: Bench) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-process-stream-"));
  const server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "warn",
    SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE: "100000",
    SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
    ...(outputBytes === null ? {} : { SVC_PROCESS_OUTPUT_BYTES: String(outputBytes) }),
  });
  try {
    const { key } = await signUpWithKey(server.baseUrl);
    const client = new CairnClient({ baseUrl: server.baseUrl, apiKey: key });
    const sandbox = await client.createSandbox();
    // The sandbox's session starts in the background: a first exec waits for it.
    await client.exec(sandbox.id, "true");
    return await work({ server, client, key, sessionId: sandbox.id });
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The server's resident memory now, in MiB, from /proc. */
async function residentMebibytes(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/^VmRSS:\s+(\d+)/m)?.[1]) / 1024;
}

interface StreamRun {
  /** The server's resident memory before the run and the most seen during it (slow reader only). */
  residentBefore?: number;
  residentMost?: number;
  produced: number;
  received: number;
  truncated: boolean;
  seconds: number;
  cpuMsPerMebibyte: number;
}

/**
 * Starts a process writing `bytes`, reads its stream through the SDK to `exit`; with `pauseMs`, a
 * slow reader that waits that long after each event.
 */
async function streamThroughSdk(bench: Bench, bytes: number, pauseMs = 0): Promise<StreamRun> {
  const pid = bench.server.process.pid;
  const cpuBefore = await cpuMilliseconds(pid);
  const residentBefore = await residentMebibytes(pid);
  let residentMost = residentBefore;
  const started = performance.now();
  const { process_id: processId } = await bench.client.startProcess(bench.sessionId, writeCommand(bytes));
  let events = 0;
  let received = 0;
  let truncated = false;
  let produced = 0;
  for await (const event of bench.client.streamProcess(bench.sessionId, processId)) {
    if (event.type === "exit") {
      produced = event.next_offset;
      break;
    }
    // The output is ASCII, one byte a character.
    received += event.stdout_chunk.length + event.stderr_chunk.length;
    truncated ||= event.truncated;
    if (pauseMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      if (++events % 50 === 0) residentMost = Math.max(residentMost, await residentMebibytes(pid));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuMilliseconds(pid)) - cpuBefore;
  return {
    produced,
    received,
    truncated,
    seconds,
    cpuMsPerMebibyte: cpu / (produced / mebibyte),
    ...(pauseMs > 0 ? { residentBefore, residentMost } : {}),
  };
}

/** The same, by a client that parses nothing: the SSE bytes the server relays, and the last event. */
async function streamRaw(bench: Bench, bytes: number): Promise<StreamRun & { sseBytes: number }> {
  const pid = bench.server.process.pid;
  const cpuBefore = await cpuMilliseconds(pid);
  const started = performance.now();
  const { process_id: processId } = await bench.client.startProcess(bench.sessionId, writeCommand(bytes));
  const response = await fetch(
    `${bench.server.baseUrl}/v1/sandboxes/${bench.sessionId}/processes/${processId}/stream?since_offset=0`,
    { headers: { authorization: `Bearer ${bench.key}` } },
  );
  let sseBytes = 0;
  let tail = "";
  const decoder = new TextDecoder();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    sseBytes += chunk.length;
    tail = (tail + decoder.decode(chunk.subarray(Math.max(0, chunk.length - 4096)))).slice(-4096);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuMilliseconds(pid)) - cpuBefore;
  const exit = tail.match(/event: exit\ndata: (.*)\n/);
  const produced = exit ? (JSON.parse(exit[1]) as { next_offset: number }).next_offset : 0;
  const state = await bench.client.getProcess(bench.sessionId, processId);
  return {
    produced,
    // Nothing is parsed: what the server kept from offset 0 on is what it relayed.
    received: produced - state.output_start_offset,
    truncated: state.output_start_offset > 0,
    seconds,
    cpuMsPerMebibyte: cpu / (produced / mebibyte),
    sseBytes,
  };
}

/** exec of a command printing `bytes`: seconds per call and server CPU per MiB, `count` calls. */
async function execOutput(bench: Bench, bytes: number, count: number) {
  const pid = bench.server.process.pid;
  const times: number[] = [];
  let cpu = 0;
  let received = 0;
  for (let index = 0; index < count; index++) {
    const cpuBefore = await cpuMilliseconds(pid);
    const started = performance.now();
    const answer = await bench.client.exec(bench.sessionId, writeCommand(bytes));
    times.push((performance.now() - started) / 1000);
    cpu += (await cpuMilliseconds(pid)) - cpuBefore;
    received += answer.stdout.length;
  }
  return { times, cpuMsPerMebibyte: cpu / ((count * bytes) / mebibyte), received: received / count };
}

const rows: string[][] = [];
const ms = (value: number) => `${value.toFixed(1)} ms`;
const rate = (run: { received: number; seconds: number }) =>
  `${(run.received / mebibyte / run.seconds).toFixed(1)} MiB/s`;
const mib = (bytes: number) => `${(bytes / mebibyte).toFixed(2)} MiB`;

console.log(`process-stream bench on ${new Date().toISOString()}, node ${process.version}, ${runs} runs`);

await withServer(null, async (bench) => {
  const firstByte: number[] = [];
  const startAnswer: number[] = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    const { process_id: processId } = await bench.client.startProcess(bench.sessionId, "echo hello");
    startAnswer.push(performance.now() - started);
    let seen = false;
    for await (const event of bench.client.streamProcess(bench.sessionId, processId)) {
      if (!seen && event.type === "output") {
        firstByte.push(performance.now() - started);
        seen = true;
      }
      if (event.type === "exit") break;
    }
  }
  const execEcho: number[] = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    await bench.client.exec(bench.sessionId, "echo hello");
    execEcho.push(performance.now() - started);
  }
  rows.push(
    [
      "process start → first output event (SDK stream)",
      `p50 ${ms(percentile(firstByte, 0.5))}, p95 ${ms(percentile(firstByte, 0.95))}, max ${ms(Math.max(...firstByte))}`,
      "p50 < 20 ms",
    ],
    [
      "  of which the start request's answer",
      `p50 ${ms(percentile(startAnswer, 0.5))}, p95 ${ms(percentile(startAnswer, 0.95))}`,
      "",
    ],
    [
      "exec `echo hello` start → answer",
      `p50 ${ms(percentile(execEcho, 0.5))}, p95 ${ms(percentile(execEcho, 0.95))}, max ${ms(Math.max(...execEcho))}`,
      "",
    ],
  );

  const bounded = await streamThroughSdk(bench, streamBytes);
  rows.push([
    "100 MiB through the stream, default 1 MiB bound (SDK)",
    `${rate(bounded)} received; ${mib(bounded.received)} of ${mib(bounded.produced)} (truncated: ${bounded.truncated}); server CPU ${bounded.cpuMsPerMebibyte.toFixed(2)} ms/MiB produced`,
    "≥ 100 MiB/s",
  ]);

  const slow = await streamThroughSdk(bench, streamBytes, 5);
  rows.push([
    "  the same, a reader pausing 5 ms after each event",
    `${rate(slow)} received; ${mib(slow.received)} of ${mib(slow.produced)} (truncated: ${slow.truncated}); server RSS ${slow.residentBefore?.toFixed(0)} → up to ${slow.residentMost?.toFixed(0)} MiB`,
    "",
  ]);

  const exec = await execOutput(bench, mebibyte, 20);
  rows.push([
    "exec returning 1 MiB of stdout (20 calls)",
    `p50 ${ms(percentile(exec.times, 0.5) * 1000)} (${(1 / percentile(exec.times, 0.5)).toFixed(1)} MiB/s); server CPU ${exec.cpuMsPerMebibyte.toFixed(2)} ms/MiB`,
    "",
  ]);
});

await withServer(128 * mebibyte, async (bench) => {
  const throughSdk = await streamThroughSdk(bench, streamBytes);
  rows.push([
    "100 MiB through the stream, 128 MiB bound (SDK)",
    `${rate(throughSdk)}; ${mib(throughSdk.received)} of ${mib(throughSdk.produced)} (truncated: ${throughSdk.truncated}); ${throughSdk.seconds.toFixed(2)} s; server CPU ${throughSdk.cpuMsPerMebibyte.toFixed(2)} ms/MiB`,
    "≥ 100 MiB/s",
  ]);
  const raw = await streamRaw(bench, streamBytes);
  rows.push([
    "100 MiB through the stream, 128 MiB bound (bytes counted only)",
    `${rate(raw)}; ${mib(raw.received)} of ${mib(raw.produced)} (truncated: ${raw.truncated}); ${mib(raw.sseBytes)} of SSE; ${raw.seconds.toFixed(2)} s; server CPU ${raw.cpuMsPerMebibyte.toFixed(2)} ms/MiB`,
    "≥ 100 MiB/s",
  ]);
});

const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column].length)));
for (const row of [["what", "figure", "goal"], ...rows]) {
  console.log(row.map((cell, column) => cell.padEnd(widths[column])).join("  "));
}
