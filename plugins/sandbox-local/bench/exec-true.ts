/**
 * Prints the raw runtime overhead of `exec true` (no HTTP): p50/p90/p99 over N runs, with and
 * without cgroups, next to bare bwrap with the same arguments (no wrapper, no cgroups) measured in
 * the same rounds, so a busy machine shows up in all three. Run as root from the repository root:
 * `npx node plugins/sandbox-local/bench/exec-true.ts [runs]`.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { bubblewrapArguments, hostSystemArguments } from "../bubblewrap-arguments.ts";
import { createLocalSandboxRuntime } from "../create-local-sandbox-runtime.ts";
import { seccompDescriptor } from "../exec.ts";
import { defaultMountDirectory, etcMountPoint } from "../session-disk.ts";

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

// bwrap with the runtime's own arguments, started directly (as root, no wrapper, no setpriv, no
// cgroups): the floor the runtime's figures stand on.
const bareArguments = bubblewrapArguments(
  hostSystemArguments(),
  {
    etc: etcMountPoint(defaultMountDirectory(join(dataDir, "on"))),
    disk: join(defaultMountDirectory(join(dataDir, "on")), onId),
    volumes: [],
    sharedMemoryBytes: 128 * 1024 * 1024,
  },
  seccompDescriptor,
);
const seccompFile = join(dataDir, "on", "system", "seccomp.bpf");
const bareBubblewrap = () =>
  new Promise<void>((resolve, reject) => {
    const filter = openSync(seccompFile, "r");
    const stdio: Array<"pipe" | "ignore" | number> = ["pipe", "pipe", "pipe"];
    while (stdio.length < seccompDescriptor) stdio.push("ignore");
    stdio.push(filter);
    const child = spawn("/usr/bin/bwrap", bareArguments, { stdio });
    closeSync(filter);
    child.stdin?.end("true");
    child.stdout?.resume();
    child.stderr?.resume();
    child.once("error", reject);
    child.once("close", () => resolve());
  });

const variants: Record<string, () => Promise<unknown>> = {
  "runtime, cgroups on ": () => withCgroups.exec(onId, { command: "true", timeoutSeconds: 5 }),
  "runtime, cgroups off": () => withoutCgroups.exec(offId, { command: "true", timeoutSeconds: 5 }),
  "bare bwrap          ": bareBubblewrap,
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
