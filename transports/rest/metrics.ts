/**
 * Prometheus metrics on prom-client: request counts and latencies per route and the app's gauges
 * in a registry per app, beside the process metrics prom-client collects (CPU, memory, event loop,
 * file descriptors, GC) and the event-loop delay of the last minute (event-loop-delay.ts).
 * /metrics answers without credentials, so a gauge group that costs a database read may be read
 * at most once per `maxAgeMilliseconds`, however often and however many at once scrape it.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { registerEventLoopDelay } from "./event-loop-delay.ts";

let processMetrics: Registry | undefined;

/**
 * The process metrics live in one registry per process, not per app: they describe the process,
 * and each collection keeps an event-loop monitor and a GC observer running for good, which a
 * test process that builds hundreds of apps must not multiply.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
    registerEventLoopDelay(processMetrics);
  }
  return processMetrics;
}

export interface MetricsOptions {
  /** Milliseconds on a monotonic clock; tests move it by hand. */
  now?: () => number;
}

export interface GaugeOptions {
  /**
   * How long one read's outcome answers every scrape (its values, or leaving the group out when
   * it failed); scrapes meanwhile share the read in flight. 0: a read per scrape.
   */
  maxAgeMilliseconds?: number;
}

export function createMetrics(options: MetricsOptions = {}) {
  const now = options.now ?? (() => performance.now());
  const registry = new Registry();
  const requests = new Counter({
    name: "cairn_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latencies = new Histogram({
    name: "cairn_http_request_duration_seconds",
    help: "HTTP request latency in seconds, by method and route pattern.",
    labelNames: ["method", "route"] as const,
    registers: [registry],
  });
  const gaugeGroups: Array<{ registry: Registry; read: () => Promise<void> }> = [];
  return {
    /** The content type of `render()`'s text. */
    contentType: registry.contentType,
    observe(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status });
      latencies.observe({ method, route }, seconds);
    },
    /**
     * Gauges read together at scrape time (sandboxes active, memories stored): `help` names each
     * gauge, `read` returns name → value. A group whose read fails is left out of the scrapes it
     * answers rather than shown with stale or made-up values.
     */
    gauges(
      help: Record<string, string>,
      read: () => Promise<Record<string, number>>,
      gaugeOptions: GaugeOptions = {},
    ) {
      const group = new Registry();
      const gauges = Object.entries(help).map(
        ([name, description]) => [name, new Gauge({ name, help: description, registers: [group] })] as const,
      );
      const maxAge = gaugeOptions.maxAgeMilliseconds ?? 0;
      let last: { startedAt: number; pending: boolean; outcome: Promise<void> } | undefined;
      gaugeGroups.push({
        registry: group,
        read: () => {
          const startedAt = now();
          // The read in flight, or the last one while it is young enough: its outcome again.
          if (last && (last.pending || startedAt - last.startedAt < maxAge)) return last.outcome;
          const current = { startedAt, pending: true, outcome: Promise.resolve() };
          current.outcome = read()
            .then((values) => {
              for (const [name, gauge] of gauges) gauge.set(values[name] ?? 0);
            })
            .finally(() => {
              current.pending = false;
            });
          last = current;
          return current.outcome;
        },
      });
    },
    async render(): Promise<string> {
      const read = await Promise.all(
        gaugeGroups.map((group) =>
          group.read().then(
            () => group.registry,
            () => undefined,
          ),
        ),
      );
      const groups = read.filter((group): group is Registry => group !== undefined);
      return Registry.merge([processRegistry(), registry, ...groups]).metrics();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
