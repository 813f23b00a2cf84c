/** Small figures the semantic benchmark prints: latency percentiles and a process's resident memory. */
import { readFile } from "node:fs/promises";

export function percentiles(latencies: number[]): string {
  const sorted = latencies.toSorted((first, second) => first - second);
  const at = (share: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
  return `p50 ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms`;
}

/** The process's resident memory, from /proc. */
export async function residentMegabytes(pid: number | undefined): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kilobytes = Number(status.match(/^VmRSS:\s+(\d+)/m)?.[1] ?? Number.NaN);
  return `${(kilobytes / 1024).toFixed(0)} MiB`;
}
