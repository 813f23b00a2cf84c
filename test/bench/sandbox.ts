/**
 * Sandbox latency over HTTP against a real server with the local bubblewrap runtime: for 50
 * sandboxes, create p50/p95, `exec true` round trip p50/p95 and destroy p50. They run in batches of
 * 10 (create 10, exec on each, destroy them): every sandbox disk is preallocated (the small
 * size's default is 2 GiB), and 50 at once would need 100 GiB free. `BENCH_STORAGE_GB` asks for
 * another disk size (the spare disk the runtime keeps is of the default size only). A create also
 * starts the sandbox's session in the background; a first exec that comes before it is ready
 * waits for it, and is counted with the others.
 * Run: `npx node test/bench/sandbox.ts` (as root, with bwrap installed).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const sandboxes = 50;
const execsPerSandbox = 4;
const batchSize = 10;
const storageGb = process.env.BENCH_STORAGE_GB === undefined ? null : Number(process.env.BENCH_STORAGE_GB);

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-sandbox-"));
const server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
  SVC_DATA_DIR: dataDir,
  SVC_LOG_LEVEL: "warn",
  SVC_MAX_CONCURRENT_SANDBOXES: String(sandboxes),
  SVC_GLOBAL_MAX_CONCURRENT_SANDBOXES: String(sandboxes),
  SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE: "100000",
  SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
});
try {
  const base = server.baseUrl;
  const json = { "content-type": "application/json" };
  const signup = await fetch(`${base}/v1/auth/signup`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      email: `bench-${crypto.randomUUID()}@example.com`,
      password: "benchmark password",
    }),
  });
  const { access_token: token } = (await signup.json()) as { access_token: string };
  const created = await fetch(`${base}/v1/api-keys`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "bench" }),
  });
  const { key } = (await created.json()) as { key: string };
  const headers = { ...json, authorization: `Bearer ${key}` };

  const createTimes: number[] = [];
  const execTimes: number[] = [];
  const destroyTimes: number[] = [];
  for (let batch = 0; batch < sandboxes / batchSize; batch++) {
    const ids: string[] = [];
    for (let index = 0; index < batchSize; index++) {
      const [response, elapsed] = await timed(() =>
        fetch(`${base}/v1/sandboxes`, {
          method: "POST",
          headers,
          body: JSON.stringify({ storage_gb: storageGb }),
        }),
      );
      if (response.status !== 201)
        throw new Error(`create failed: ${response.status} ${await response.text()}`);
      ids.push(((await response.json()) as { id: string }).id);
      createTimes.push(elapsed);
    }
    for (let round = 0; round < execsPerSandbox; round++) {
      for (const id of ids) {
        const [response, elapsed] = await timed(async () => {
          const answer = await fetch(`${base}/v1/sandboxes/${id}/exec`, {
            method: "POST",
            headers,
            body: JSON.stringify({ command: "true" }),
          });
          await answer.arrayBuffer();
          return answer;
        });
        if (response.status !== 200) throw new Error(`exec failed: ${response.status}`);
        execTimes.push(elapsed);
      }
    }
    for (const id of ids) {
      const [response, elapsed] = await timed(() =>
        fetch(`${base}/v1/sandboxes/${id}`, { method: "DELETE", headers }),
      );
      if (response.status !== 204) throw new Error(`destroy failed: ${response.status}`);
      destroyTimes.push(elapsed);
    }
  }
  const format = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`sandboxes: ${sandboxes}, exec calls: ${execTimes.length}`);
  console.log(
    `create   p50 ${format(percentile(createTimes, 0.5))}  p95 ${format(percentile(createTimes, 0.95))}  (target p50 ≤ 30 ms)`,
  );
  console.log(
    `exec true p50 ${format(percentile(execTimes, 0.5))}  p95 ${format(percentile(execTimes, 0.95))}  (target p50 ≤ 10 ms)`,
  );
  console.log(`destroy  p50 ${format(percentile(destroyTimes, 0.5))}`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
