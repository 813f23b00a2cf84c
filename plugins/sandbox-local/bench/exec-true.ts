/**
 * Prints the raw runtime latency of `exec true` (no HTTP): p50/p90/p99 over N runs, with and
 * without cgroups, measured in the same rounds so a busy machine shows up in both. Run as root
 * from the repository root: `npx node plugins/sandbox-local/bench/exec-true.ts [runs]`.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { createLocalSandboxRuntime } from "../create-local-sandbox-runtime.ts";

const runs = Number(process.argv[2] ?? 300);
const dataDir = await mkdtemp(join("/var/tmp", "cairn-bench-"));
const withCgroups = createLocalSandboxRuntime({
  dataDir: join(dataDir, "on"),
  useCgroups: true,
  sizes: { small: { cpuCores: Number(process.env.BENCH_CPU_CORES ?? 0.5) } },
});
const withoutCgroups = createLocalSandboxRuntime({ dataDir: join(dataDir, "off"), useCgroups: false });
const spec = {
  accountId: randomUUID(),
  size: "small" as const,
  storageGb: null,
  egressHosts: [],
  volumeMounts: [],
};
const onId = randomUUID();
const offId = randomUUID();
await withCgroups.create({ id: onId, ...spec });
await withoutCgroups.create({ id: offId, ...spec });

const variants: Record<string, () => Promise<unknown>> = {
  "runtime, cgroups on ": () => withCgroups.exec(onId, { command: "true", timeoutSeconds: 5 }),
  "runtime, cgroups off": () => withoutCgroups.exec(offId, { command: "true", timeoutSeconds: 5 }),
};
const durations: Record<string, number[]> = Object.fromEntries(
  Object.keys(variants).map((name) => [name, []]),
);
for (let run = -10; run < runs; run++) {
  for (const [name, variant] of Object.entries(variants)) {
    const started = performance.now();
    await variant();
    if (run >= 0) durations[name].push(performance.now() - started);
  }
}
const percentile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))].toFixed(2);
for (const [name, values] of Object.entries(durations)) {
  values.sort((a, b) => a - b);
  console.log(
    `exec true, ${name}: p50 ${percentile(values, 0.5)} ms, p90 ${percentile(values, 0.9)} ms, p99 ${percentile(values, 0.99)} ms (${runs} runs)`,
  );
}
await withCgroups.destroy(onId);
await withoutCgroups.destroy(offId);
await withCgroups.close();
await withoutCgroups.close();
await rm(dataDir, { recursive: true, force: true });
