/** Prometheus text metrics: request counts and latencies per route, kept in process. */

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  count: number;
  sum: number;
  buckets: number[];
}

export function createMetrics() {
  const requests = new Map<string, number>();
  const latencies = new Map<string, Series>();
  const gaugeReaders: Array<() => Promise<Record<string, number>>> = [];
  return {
    observe(method: string, route: string, status: number, seconds: number) {
      const labels = `method="${method}",route="${route}"`;
      const countKey = `${labels},status="${status}"`;
      requests.set(countKey, (requests.get(countKey) ?? 0) + 1);
      const series = latencies.get(labels) ?? { count: 0, sum: 0, buckets: latencyBuckets.map(() => 0) };
      series.count++;
      series.sum += seconds;
      latencyBuckets.forEach((bound, index) => {
        if (seconds <= bound) series.buckets[index]++;
      });
      latencies.set(labels, series);
    },
    /** Gauges read together at scrape time (sandboxes active, memories stored): name → value. */
    gauges(read: () => Promise<Record<string, number>>) {
      gaugeReaders.push(read);
    },
    async render(): Promise<string> {
      const lines = ["# TYPE cairn_http_requests_total counter"];
      for (const [labels, count] of requests) lines.push(`cairn_http_requests_total{${labels}} ${count}`);
      lines.push("# TYPE cairn_http_request_duration_seconds histogram");
      for (const [labels, series] of latencies) {
        latencyBuckets.forEach((bound, index) => {
          lines.push(
            `cairn_http_request_duration_seconds_bucket{${labels},le="${bound}"} ${series.buckets[index]}`,
          );
        });
        lines.push(`cairn_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${series.count}`);
        lines.push(`cairn_http_request_duration_seconds_sum{${labels}} ${series.sum}`);
        lines.push(`cairn_http_request_duration_seconds_count{${labels}} ${series.count}`);
      }
      for (const read of gaugeReaders) {
        const values = await read().catch(() => ({}));
        for (const [name, value] of Object.entries(values))
          lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
      }
      return `${lines.join("\n")}\n`;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
