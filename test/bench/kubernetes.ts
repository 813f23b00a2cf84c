/**
 * Sandbox latency and Kubernetes API cost on the simulated cluster (test/support/kubernetes-cluster.ts:
 * real etcd, kube-apiserver, controller manager and scheduler, kwok's fake node, exec through
 * pod-exec-server). A platform on SQLite with the Kubernetes runtime, as Cairn's own service
 * account; `BENCH_RUNS` (20) rounds, one sandbox at a time, of: create (the pod scheduled and
 * Running), the first `exec echo`, a second exec, destroy. Prints p50/p95 of each phase and the
 * API requests Cairn made in each, by verb and resource: Cairn's kubeconfig points at a counting
 * plain-HTTP proxy in this process that forwards to the API server (websocket exec included). The
 * API server's own `apiserver_request_total`, diffed over the whole run, gives what every client
 * (scheduler, kwok, controllers) did per sandbox as well. The runtime polls the pod every
 * `BENCH_POLL_MS` (its default, 1000, when unset; the real-cluster test uses 100). Calls go to the
 * app in process, not over HTTP. No container starts: a real kubelet's share is not measured.
 * Run: `node test/bench/kubernetes.ts` (as root: the exec endpoint runs bubblewrap).
 */

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../../core/ports/logger.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/runtime.ts";
import { eventually } from "../support/eventually.ts";
import { startKubernetesTestCluster } from "../support/kubernetes-cluster.ts";
import { createAccountWithKey, createTestPlatform } from "../support/platforms.ts";

const runs = Number(process.env.BENCH_RUNS ?? 20);
const pollIntervalMs =
  process.env.BENCH_POLL_MS === undefined ? undefined : Number(process.env.BENCH_POLL_MS);
const phases = ["create", "first exec", "second exec", "destroy"] as const;
type Phase = (typeof phases)[number];

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

/** "verb resource" of an API path, named as the API server's metrics name them. */
function describeRequest(method: string, url: string, upgrade: boolean): string {
  const { pathname, searchParams } = new URL(url, "http://proxy");
  const parts = pathname.split("/").filter(Boolean);
  let rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3);
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [resource = pathname, name, subresource] = rest;
  const named = name !== undefined;
  const verb = upgrade
    ? "connect"
    : method === "GET"
      ? named
        ? "get"
        : searchParams.get("watch") === "true" || searchParams.get("watch") === "1"
          ? "watch"
          : "list"
      : ({ POST: "create", PUT: "update", PATCH: "patch", DELETE: named ? "delete" : "deletecollection" }[
          method
        ] ?? method);
  return `${verb} ${subresource ? `${resource}/${subresource}` : resource}`;
}

/** A plain-HTTP proxy to the API server that counts each request into `counts`. */
async function startCountingProxy(server: string, caCertificate: string) {
  const target = new URL(server);
  const ca = readFileSync(caCertificate);
  let counts = new Map<string, number>();
  const count = (request: IncomingMessage, upgrade: boolean) => {
    const key = describeRequest(request.method ?? "GET", request.url ?? "/", upgrade);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const headersFor = (request: IncomingMessage) => ({ ...request.headers, host: target.host });
  const proxy = createServer((request, response) => {
    count(request, false);
    const upstream = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        ca,
        method: request.method,
        path: request.url,
        headers: headersFor(request),
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", (error) => response.destroy(error));
    request.pipe(upstream);
  });
  // Exec is a websocket: count the upgrade, then splice the two sockets.
  proxy.on("upgrade", (request, socket, head) => {
    count(request, true);
    const upstream = tlsConnect({ host: target.hostname, port: Number(target.port), ca }, () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (const [name, value] of Object.entries(headersFor(request)))
        for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    /** The counts since the last take. */
    take() {
      const taken = counts;
      counts = new Map();
      return taken;
    },
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** apiserver_request_total summed by "verb resource[/subresource]", every client. */
function parseRequestTotals(metrics: string): Map<string, number> {
  const totals = new Map<string, number>();
  for (const line of metrics.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]] as const),
    );
    if (!labels.resource) continue;
    const verb = { POST: "create", PUT: "update" }[labels.verb] ?? labels.verb.toLowerCase();
    const key = `${verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ""}`;
    totals.set(key, (totals.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return totals;
}

const format = (counts: Map<string, number>, divisor: number) =>
  [...counts]
    .filter(([, value]) => value > 0)
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => `${key} ${Number((value / divisor).toFixed(2))}`)
    .join(", ") || "none";

// Only errors, with their causes, reach the console (a failed create says why).
const errorLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (fields: unknown, message?: string) => console.error(message, fields),
  child: () => errorLogger,
};

const cluster = await startKubernetesTestCluster();
const proxy = await startCountingProxy(cluster.server, cluster.caCertificate);
try {
  // Cairn's service account (its token and RBAC), with the proxy as the server.
  const cairnKubeConfig = new KubeConfig();
  cairnKubeConfig.loadFromFile(cluster.cairnKubeConfigPath);
  const user = cairnKubeConfig.getCurrentUser();
  if (!user) throw new Error("the cairn kubeconfig has no user");
  // The client library refuses http:// unless TLS checks are off; the proxy checks the API server.
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser({ name: "through-proxy", server: proxy.url, skipTLSVerify: true }, user);
  const test = await createTestPlatform("sqlite", {
    logger: errorLogger,
    sandboxRuntime: createKubernetesSandboxRuntime({
      namespace: cluster.sandboxNamespace,
      kubeConfig,
      pollIntervalMs,
      startTimeoutMs: 60_000,
    }),
    environment: {
      SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE: "100000",
      SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
    },
  });
  try {
    const { key } = await createAccountWithKey(test);
    const call = async (path: string, method: string, json?: unknown) => {
      const started = performance.now();
      const response = await test.request(path, { method, json, credential: key });
      const body = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${body}`);
      return {
        body: body ? (JSON.parse(body) as Record<string, unknown>) : {},
        ms: performance.now() - started,
      };
    };
    const times = new Map<Phase, number[]>(phases.map((phase) => [phase, []]));
    const requests = new Map<Phase, Map<string, number>>(phases.map((phase) => [phase, new Map()]));
    const record = (phase: Phase, ms: number) => {
      times.get(phase)?.push(ms);
      const into = requests.get(phase) ?? new Map<string, number>();
      for (const [name, value] of proxy.take()) into.set(name, (into.get(name) ?? 0) + value);
    };
    const totalsBefore = parseRequestTotals((await cluster.admin.request("GET", "/metrics")).text);
    const createToFirstExec: number[] = [];
    proxy.take();
    for (let run = 0; run < runs; run++) {
      const created = await call("/v1/sandboxes", "POST", {});
      record("create", created.ms);
      const id = String(created.body.id);
      const first = await call(`/v1/sandboxes/${id}/exec`, "POST", { command: "echo hello" });
      if (first.body.stdout !== "hello\n") throw new Error(`first exec: ${JSON.stringify(first.body)}`);
      record("first exec", first.ms);
      createToFirstExec.push(created.ms + first.ms);
      record("second exec", (await call(`/v1/sandboxes/${id}/exec`, "POST", { command: "echo again" })).ms);
      record("destroy", (await call(`/v1/sandboxes/${id}`, "DELETE")).ms);
    }
    // The controllers and kwok finish with the last pod (it is gone from the API server) before
    // the API server's totals are read.
    await eventually(async () => {
      const pods = (await cluster.admin.send(
        "GET",
        `/api/v1/namespaces/${cluster.sandboxNamespace}/pods`,
      )) as {
        items: unknown[];
      };
      return pods.items.length === 0 ? true : undefined;
    });
    const totalsAfter = parseRequestTotals((await cluster.admin.request("GET", "/metrics")).text);
    const clusterWide = new Map<string, number>();
    for (const [name, value] of totalsAfter) {
      const difference = value - (totalsBefore.get(name) ?? 0);
      if (difference > 0 && !/ (leases|endpoints|endpointslices)$/.test(name))
        clusterWide.set(name, difference);
    }

    const row = (label: string, values: number[]) =>
      `${label.padEnd(22)} p50 ${percentile(values, 0.5).toFixed(1)} ms, p95 ${percentile(values, 0.95).toFixed(1)} ms`;
    console.log(
      `${runs} sandboxes, one at a time; pod poll interval ${pollIntervalMs ?? "default (1000)"} ms`,
    );
    console.log(row("create to first exec", createToFirstExec));
    for (const phase of phases) console.log(row(phase, times.get(phase) ?? []));
    console.log("\nCairn's API requests per sandbox, by phase:");
    for (const phase of phases)
      console.log(`  ${phase.padEnd(12)} ${format(requests.get(phase) ?? new Map(), runs)}`);
    console.log(
      "\nEvery client's API requests per sandbox (apiserver_request_total, the API server's own leases and endpoints left out):",
    );
    console.log(`  ${format(clusterWide, runs)}`);
  } finally {
    await test.close();
  }
} finally {
  await proxy.close();
  await cluster.stop();
}
