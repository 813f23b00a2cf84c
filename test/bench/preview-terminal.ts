/**
 * Previews and the takeover terminal against a real server (the Node entry, its WebSocket glue)
 * with the local bubblewrap runtime (issue 43):
 * - preview overhead: `BENCH_RUNS` (200) sequential GETs of a small page from a Node server in
 *   the sandbox, through its preview URL from this machine (one keep-alive connection to Cairn;
 *   each request a new connection inside the sandbox, through the relay), against the same GETs
 *   made inside the sandbox to 127.0.0.1 by a Node client there (a new connection each, as the
 *   relay makes). Each side is timed after `BENCH_WARMUP` (600) untimed requests, the steady
 *   state, whose first `BENCH_RUNS` are also printed as the cold figure; warm-up and runs
 *   together stay under the `preview_traffic` bucket's 1,200 a minute. Both sides use
 *   `node:http`, so the client library's own cost is the same on each (undici's `fetch` adds
 *   about half a millisecond a request). Goal: preview p50 − direct p50 within 1 ms.
 * - terminal echo: `BENCH_RUNS` keystrokes typed one at a time into the takeover terminal, each
 *   timed from send to its echo arriving. Goal p50 < 5 ms.
 * Prints figures, never fails on them.
 * Run: `node test/bench/preview-terminal.ts` (as root, with bwrap installed); BENCH_SERVER_FLAGS
 * adds Node flags to the server's command (`--cpu-prof --cpu-prof-dir=…`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import WebSocket from "ws";
import { CairnClient } from "../../sdks/js/src/index.ts";
import { echoServerSource } from "../sandboxes/preview-terminal-support.ts";
import { signUpWithKey, startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const runs = Number(process.env.BENCH_RUNS ?? 200);
const warmup = Number(process.env.BENCH_WARMUP ?? 600);
const port = 8800;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const row = (name: string, values: number[]) =>
  console.log(
    `${name.padEnd(40)} p50 ${percentile(values, 0.5).toFixed(3)} ms  p90 ${percentile(values, 0.9).toFixed(3)} ms  p99 ${percentile(values, 0.99).toFixed(3)} ms`,
  );

/**
 * GETs inside the sandbox: `warmup` then `runs` more, all timed, printed as JSON milliseconds (the
 * first `runs` are the cold figure, the last `runs` the steady state).
 */
const directClient = `const http=require("http");const n=${warmup + runs};const t=[];
function one(i){const s=process.hrtime.bigint();http.get({host:"127.0.0.1",port:${port},path:"/bench",agent:false},r=>{r.resume();r.on("end",()=>{t.push(Number(process.hrtime.bigint()-s)/1e6);if(i+1<n)one(i+1);else console.log(JSON.stringify(t));});});}
one(0);`;

/** One GET over `agent` (kept alive), timed from the call to the answer's last byte. */
const timedGet = (url: string, agent: Agent) =>
  new Promise<number>((done, fail) => {
    const started = performance.now();
    get(url, { agent }, (answer) => {
      answer.resume();
      answer.on("end", () => done(performance.now() - started));
    }).on("error", fail);
  });

const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-preview-"));
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
const server = await startServer(process.execPath, [...serverFlags, join(root, "platform/serve.ts")], {
  SVC_DATA_DIR: dataDir,
  SVC_LOG_LEVEL: "warn",
  SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
});
try {
  const { key } = await signUpWithKey(server.baseUrl);
  const client = new CairnClient({ baseUrl: server.baseUrl, apiKey: key });
  const sandbox = await client.createSandbox();
  await client.exec(sandbox.id, "true");
  await client.fileCreate(sandbox.id, "echo-server.js", echoServerSource);
  await client.fileCreate(sandbox.id, "direct.js", directClient);
  await client.startProcess(sandbox.id, `node echo-server.js ${port}`);
  const preview = await client.preview(sandbox.id, port, { ttlSeconds: 600 });
  for (let tries = 0; tries < 100; tries++) {
    const answer = await fetch(preview.url);
    await answer.arrayBuffer();
    if (answer.status === 200) break;
    await new Promise((done) => setTimeout(done, 100));
  }

  const direct = await client.exec(sandbox.id, "node direct.js", { timeout: 100 });
  const directAll = JSON.parse(direct.stdout) as number[];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // Each side is timed after the same warm-up (the direct client's too): warm code on both.
  const previewCold: number[] = [];
  for (let index = 0; index < warmup; index++) {
    const time = await timedGet(`${preview.url}bench`, agent);
    if (index < runs) previewCold.push(time);
    await timedGet(`${server.baseUrl}/health`, agent);
  }
  const previewTimes: number[] = [];
  for (let index = 0; index < runs; index++) previewTimes.push(await timedGet(`${preview.url}bench`, agent));
  const healthTimes: number[] = [];
  for (let index = 0; index < runs; index++)
    healthTimes.push(await timedGet(`${server.baseUrl}/health`, agent));
  agent.destroy();
  const directCold = directAll.slice(0, runs);
  const directTimes = directAll.slice(warmup);
  const overhead = (through: number[], inside: number[]) =>
    `${(percentile(through, 0.5) - percentile(inside, 0.5)).toFixed(3)} ms`;
  console.log(`preview of a sandbox port, ${runs} sequential GETs after ${warmup} untimed`);
  row("  Cairn's GET /health (the server's floor)", healthTimes);
  row("  direct, inside the sandbox", directTimes);
  row("  through the preview URL", previewTimes);
  console.log(`  overhead p50: ${overhead(previewTimes, directTimes)} (goal ≤ 1 ms)`);
  console.log(`cold: the first ${runs} of the warm-up on each side`);
  row("  direct, inside the sandbox", directCold);
  row("  through the preview URL", previewCold);
  console.log(`  overhead p50: ${overhead(previewCold, directCold)}`);

  const { token } = await client.takeoverToken(sandbox.id);
  const socket = new WebSocket(client.takeoverUrl(sandbox.id, token));
  let received = "";
  let waiter: (() => void) | null = null;
  socket.on("message", (data) => {
    received += data.toString();
    waiter?.();
  });
  await new Promise((done) => socket.once("open", done));
  const waitFor = (text: string) =>
    new Promise<void>((done) => {
      waiter = () => {
        if (received.includes(text)) {
          waiter = null;
          done();
        }
      };
      waiter();
    });
  await waitFor("$ ");
  const echoTimes: number[] = [];
  for (let index = 0; index < runs; index++) {
    received = "";
    const started = performance.now();
    socket.send(Buffer.from("x"));
    await waitFor("x");
    echoTimes.push(performance.now() - started);
    if (index % 50 === 49) {
      socket.send(Buffer.from("\u0015"));
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  console.log(`takeover terminal, ${runs} keystrokes`);
  row("  keystroke → echo", echoTimes);
  socket.close();
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
