/**
 * Prometheus metrics on prom-client: request counts and latencies per route and the app's gauges
 * in a registry per app, beside the process metrics prom-client collects (CPU, memory, event loop,
 * file descriptors, GC) and the event-loop delay of the last minute (event-loop-delay.ts).
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

export function createMetrics() {
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
     * gauge, `read` returns name → value. A group whose read fails is left out of that scrape
     * rather than shown with stale or made-up values.
     */
    gauges(help: Record<string, string>, read: () => Promise<Record<string, number>>) {
      const group = new Registry();
      const gauges = Object.entries(help).map(
        ([name, description]) => [name, new Gauge({ name, help: description, registers: [group] })] as const,
      );
      gaugeGroups.push({
        registry: group,
        read: async () => {
          const values = await read();
          for (const [name, gauge] of gauges) gauge.set(values[name] ?? 0);
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
