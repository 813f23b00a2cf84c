/**
 * /metrics answers anyone, and its storage gauges are counts over whole tables (every account's
 * memories; on SQLite on the server's one thread): however often and however many at once scrape
 * it, storage is read at most once per 10 s (issue 39: no one may stall the server for the
 * others). Scrapes meanwhile share the read in flight, or the last one; after 10 s the next scrape
 * reads again and shows what changed. Before, every scrape counted every table again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, storageGaugesMaxAgeMilliseconds } from "../../transports/rest/create-app.ts";
import { createMetrics } from "../../transports/rest/metrics.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("storage reads of /metrics", () => {
  let test: TestPlatform;
  let reads = 0;
  let now = 0;
  let app: ReturnType<typeof createApp>;
  // Held open while set: the reads wait for it, as a count over millions of rows takes a while.
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    const { gauges } = test.platform.storage;
    test.platform.storage.gauges = async (at) => {
      reads++;
      await gate;
      return gauges(at);
    };
    app = createApp(test.platform, { metrics: createMetrics({ now: () => now }) });
  });
  afterAll(() => test.close());

  const scrape = async () => {
    const response = await app.request("/metrics");
    expect(response.status).toBe(200);
    return response.text();
  };
  const stored = (metrics: string) => Number(/^cairn_memories_stored (\d+)$/m.exec(metrics)?.[1]);

  it("reads storage once for many scrapes at once and back to back, until 10 s have passed", async () => {
    let open = () => {};
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const concurrent = Array.from({ length: 50 }, () => scrape());
    // Every scrape is waiting on the one read in flight.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads).toBe(1);
    open();
    gate = undefined;
    const answers = await Promise.all(concurrent);
    for (const metrics of answers) expect(stored(metrics)).toBe(0);
    for (let scrapes = 1; scrapes <= 50; scrapes++) {
      now = Math.floor(((storageGaugesMaxAgeMilliseconds - 1) * scrapes) / 50);
      expect(stored(await scrape())).toBe(0);
    }
    expect(now).toBe(storageGaugesMaxAgeMilliseconds - 1);
    expect(reads).toBe(1);

    // A memory stored meanwhile shows once the read is 10 s old, and not before.
    const { key } = await createAccountWithKey(test);
    const remembered = await test.request("/v1/memory", {
      method: "POST",
      json: { content: "Counted at the next read of the gauges." },
      credential: key,
    });
    expect(remembered.status).toBe(201);
    expect(stored(await scrape())).toBe(0);
    now += 1;
    expect(stored(await scrape())).toBe(1);
    expect(reads).toBe(2);
  });
});
