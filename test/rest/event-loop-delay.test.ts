/**
 * /metrics exports the event-loop delay (transports/rest/event-loop-delay.ts): a stall of the
 * loop shows in it, to every scraper alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

function delay(metrics: string, quantile: string): number {
  const pattern = new RegExp(`^cairn_event_loop_delay_seconds\\{quantile="${quantile}"\\} (\\S+)$`, "m");
  const match = pattern.exec(metrics);
  if (match === null)
    throw new Error(`no cairn_event_loop_delay_seconds{quantile="${quantile}"} in:\n${metrics}`);
  return Number(match[1]);
}

describe("event-loop delay in /metrics", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
  });
  afterAll(() => test.close());

  it("exports the delay's quantiles and maximum in seconds, with help and type", async () => {
    const metrics = await (await test.request("/metrics")).text();
    expect(metrics).toContain("# TYPE cairn_event_loop_delay_seconds gauge");
    for (const quantile of ["0.5", "0.9", "0.99", "1"])
      expect(delay(metrics, quantile)).toBeGreaterThanOrEqual(0);
    // prom-client's own gauges stay beside it.
    expect(metrics).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it("shows a stalled loop as its maximum, to a second scraper as well", async () => {
    const scrape = async () => (await test.request("/metrics")).text();
    // Holds the loop as a synchronous request handler would, until a scrape shows it: the monitor
    // measures from its previous sample and records once the loop is free, so a stall right after
    // start, or a scrape before the monitor's timer ran, can miss it; the next try does not.
    const first = await eventually(async () => {
      const stalledUntil = performance.now() + 250;
      while (performance.now() < stalledUntil) {}
      const metrics = await scrape();
      return delay(metrics, "1") >= 0.2 ? metrics : undefined;
    });
    const second = await scrape();
    expect(delay(first, "1")).toBeLessThan(5);
    expect(delay(second, "1")).toBeGreaterThanOrEqual(0.2);
    // One long sample among hundreds: the stall is the maximum, not the median.
    expect(delay(first, "0.5")).toBeLessThan(0.2);
  });
});
