/**
 * Event-loop delay for /metrics: how late the loop came back to a timer, which is how long any
 * request waited behind work running on the loop (docs/api.md#health-metrics-and-api-reference). It
 * comes from `perf_hooks.monitorEventLoopDelay` over a window of the last 30 to 60 seconds, so
 * every scraper sees the same figures: prom-client's `nodejs_eventloop_lag_*` gauges start again
 * at each scrape, so two scrapers (or a person with curl) would each see only part of a stall.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

/** Sampling interval of the monitor. */
const resolutionMs = 10;
/** Longest stretch the figures cover; they always cover at least half of it. */
const windowMs = 60_000;
const quantiles = [0.5, 0.9, 0.99, 1] as const;

type Histogram = ReturnType<typeof monitorEventLoopDelay>;

// Node records the whole interval between two samples (the resolution plus the delay); Deno's
// implementation records the delay alone.
const recordsInterval = !("Deno" in globalThis);

/** Seconds of delay at `quantile` (1: the maximum); 0 before the first sample. */
function delaySeconds(histogram: Histogram, quantile: number): number {
  if (histogram.count === 0) return 0;
  const nanoseconds = quantile === 1 ? histogram.max : histogram.percentile(quantile * 100);
  const delayMs = nanoseconds / 1e6 - (recordsInterval ? resolutionMs : 0);
  return Math.max(0, delayMs) / 1000;
}

/**
 * The process's two monitors, made once however many apps register the gauge (the event loop is
 * the process's): each samples every 10 ms for good. Every half window the older one starts
 * again, and a scrape reads the other, which then holds between half a window and a whole one.
 * Null where the runtime has no monitor.
 */
let monitors: { reading: () => Histogram } | null | undefined;

function sharedMonitors() {
  if (monitors !== undefined) return monitors;
  try {
    const histograms: [Histogram, Histogram] = [
      monitorEventLoopDelay({ resolution: resolutionMs }),
      monitorEventLoopDelay({ resolution: resolutionMs }),
    ];
    for (const histogram of histograms) histogram.enable();
    // The first monitor reads until the second has run for half a window.
    let older = 0;
    const turn = setInterval(() => {
      histograms[older].reset();
      older = 1 - older;
    }, windowMs / 2);
    (turn as { unref?: () => void }).unref?.();
    monitors = { reading: () => histograms[older] };
  } catch {
    monitors = null;
  }
  return monitors;
}

/** Registers `cairn_event_loop_delay_seconds{quantile}` in `registry`; nothing without a monitor. */
export function registerEventLoopDelay(registry: Registry): void {
  const shared = sharedMonitors();
  if (shared === null) return;
  new Gauge({
    name: "cairn_event_loop_delay_seconds",
    help: "How late the event loop ran a timer over the last 30 to 60 seconds, by quantile (1 is the maximum): requests wait as long behind work on the loop.",
    labelNames: ["quantile"] as const,
    registers: [registry],
    collect() {
      for (const quantile of quantiles)
        this.set({ quantile: String(quantile) }, delaySeconds(shared.reading(), quantile));
    },
  });
}
