/**
 * Prints the raw runtime overhead of `exec true` (no HTTP): p50/p90/p99 over N runs, with and
 * without cgroups. Run as root from the repository root: `npx node plugins/sandbox-local/bench/exec-true.ts [runs]`.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { createLocalSandboxRuntime } from "../create-local-sandbox-runtime.ts";

const runs = Number(process.argv[2] ?? 300);
const percentile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))].toFixed(2);

for (const useCgroups of [true, false]) {
  const dataDir = await mkdtemp(join("/var/tmp", "cairn-bench-"));
  const runtime = createLocalSandboxRuntime({ dataDir, useCgroups });
  const id = randomUUID();
  await runtime.create({
    id,
    accountId: id,
    size: "small",
    storageGb: null,
    egressHosts: [],
    volumeMounts: [],
  });
  for (let warmUp = 0; warmUp < 10; warmUp++) await runtime.exec(id, { command: "true", timeoutSeconds: 5 });
  const durations: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await runtime.exec(id, { command: "true", timeoutSeconds: 5 });
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  console.log(
    `exec true, cgroups ${useCgroups ? "on " : "off"}: p50 ${percentile(durations, 0.5)} ms, p90 ${percentile(durations, 0.9)} ms, p99 ${percentile(durations, 0.99)} ms (${runs} runs)`,
  );
  await runtime.destroy(id);
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
