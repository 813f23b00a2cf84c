/**
 * The clients and measurements of test/bench/noisy-neighbour.ts: a call with a timeout, the
 * bystander's loop, the noisy account's workers, percentiles, the event-loop delay scraped from
 * /metrics, and a server stop that cannot hang on a stalled server.
 */
import type { ChildProcess } from "node:child_process";
import { Worker } from "node:worker_threads";
import type { NoisyRequest } from "./noisy-calls.ts";

// A call that takes longer is counted as failed: a stalled server cannot hold the run forever.
export const noisyTimeoutMs = 120_000;
const bystanderTimeoutMs = 30_000;

export interface Answer {
  status: number;
  ms: number;
  body: string;
}

export async function send(
  baseUrl: string,
  key: string,
  request: NoisyRequest,
  timeoutMs: number,
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await response.text();
    return { status: response.status, ms: performance.now() - started, body };
  } catch {
    // Timed out or cut: status 0, counted as "other".
    return { status: 0, ms: performance.now() - started, body: "" };
  }
}

export async function sendOk(baseUrl: string, key: string, request: NoisyRequest): Promise<string> {
  const answer = await send(baseUrl, key, request, noisyTimeoutMs);
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer.body;
}

export function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

export const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(11);

/** B on its own thread (noisy-bystander-thread.ts), for `seconds`. */
export function bystanderOnThread(baseUrl: string, key: string, seconds: number): Promise<Bystander> {
  const worker = new Worker(new URL("./noisy-bystander-thread.ts", import.meta.url), {
    workerData: { baseUrl, key, seconds },
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (result: Bystander) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

export type Bystander = Awaited<ReturnType<typeof bystander>>;

/** B: GET /v1/account and a recall, one after the other, until the deadline. */
export async function bystander(baseUrl: string, key: string, deadline: number) {
  const latencies = { account: [] as number[], recall: [] as number[] };
  let failed = 0;
  const queries = ["deployment rollout", "favorite color", "what does Nadia prefer", "project deadline"];
  for (let round = 0; performance.now() < deadline; round++) {
    const account = await send(baseUrl, key, { method: "GET", path: "/v1/account" }, bystanderTimeoutMs);
    const q = encodeURIComponent(queries[round % queries.length]);
    const recall = await send(
      baseUrl,
      key,
      { method: "GET", path: `/v1/memory/search?q=${q}` },
      bystanderTimeoutMs,
    );
    for (const [answer, list] of [
      [account, latencies.account],
      [recall, latencies.recall],
    ] as const) {
      list.push(answer.ms);
      if (answer.status !== 200) failed++;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { ...latencies, failed };
}

export type Counts = {
  ok: number;
  limited: number;
  other: number;
  statuses: Map<number, number>;
  latencies: number[];
};

/** A: `clients` workers taking the kinds in turn until the deadline. */
export async function noisy(
  baseUrl: string,
  key: string,
  kinds: Record<string, () => NoisyRequest>,
  settings: { clients: number; deadline: number },
) {
  const { clients, deadline } = settings;
  const names = Object.keys(kinds);
  const counts = new Map<string, Counts>(
    names.map((name) => [name, { ok: 0, limited: 0, other: 0, statuses: new Map(), latencies: [] }]),
  );
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const name = names[next++ % names.length];
        const answer = await send(baseUrl, key, kinds[name](), noisyTimeoutMs);
        const count = counts.get(name) as Counts;
        if (answer.status >= 200 && answer.status < 300) count.ok++;
        else if (answer.status === 429) count.limited++;
        else {
          count.other++;
          count.statuses.set(answer.status, (count.statuses.get(answer.status) ?? 0) + 1);
        }
        count.latencies.push(answer.ms);
      }
    }),
  );
  return counts;
}

/** The server's event-loop delay from /metrics: prom-client's since the last scrape, and ours. */
export async function loopDelay(baseUrl: string) {
  const text = await (
    await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(bystanderTimeoutMs) })
  ).text();
  const value = (pattern: string) => {
    const line = text.split("\n").find((candidate) => candidate.startsWith(pattern));
    return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1)) * 1000;
  };
  return {
    sinceScrape: {
      p50: value("nodejs_eventloop_lag_p50_seconds "),
      p99: value("nodejs_eventloop_lag_p99_seconds "),
      max: value("nodejs_eventloop_lag_max_seconds "),
    },
    window: {
      p50: value('cairn_event_loop_delay_seconds{quantile="0.5"}'),
      p99: value('cairn_event_loop_delay_seconds{quantile="0.99"}'),
      max: value('cairn_event_loop_delay_seconds{quantile="1"}'),
    },
  };
}

export async function linkJobsQueued(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^cairn_memory_link_jobs_queued (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** What "other" answers were: "403 ×3", or timeouts (and cut connections). */
export function describeStatuses(statuses: Map<number, number>): string {
  if (statuses.size === 0) return "";
  return `   (${[...statuses].map(([status, count]) => `${status === 0 ? "timeout" : status} ×${count}`).join(", ")})`;
}

export async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  // A server stuck in a match never runs its signal handler.
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await exited;
  clearTimeout(timer);
}
