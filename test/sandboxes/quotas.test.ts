/**
 * Sandbox quotas over REST on real databases and real bubblewrap sandboxes, with an injected
 * clock: the concurrent cap before the monthly cap, the `details` of docs/errors.md#quota-details, monthly
 * accounting across destroyed, expired and running sessions, and refusals that create and bill
 * nothing.
 */
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

const minute = 60_000;

/** Everything a refusal must leave untouched: the list, the usage figures and the month's hours. */
async function snapshot(client: SandboxClient) {
  const [list, usage] = await Promise.all([client.list(), client.usage()]);
  return { sessions: list.body.map((session) => [session.id, session.status]), usage: usage.body };
}

describe.each(storageTargets)("sandbox quotas on %s", (target) => {
  const clock = createFakeClock(new Date("2026-01-15T12:00:00Z"));
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      clock,
      environment: { SVC_FREE_MONTHLY_SANDBOX_HOURS: "0.5" },
    });
  });
  afterAll(() => test.close());

  it("checks the concurrent cap before the monthly cap, then refuses the month with Retry-After", async () => {
    const client = await createSandboxClient(test);
    const first = await client.createActive();
    const second = await client.createActive();
    // Two sessions running for 15 minutes: 0.5 hours, the whole month's allowance.
    clock.advance(15 * minute);
    expect((await client.usage()).body).toMatchObject({
      monthly_sandbox_hours_used: 0.5,
      monthly_sandbox_hours_limit: 0.5,
      concurrent_sandboxes: 2,
      concurrent_sandboxes_limit: 2,
    });

    const before = await snapshot(client);
    const concurrent = await client.create();
    expect(concurrent.status).toBe(429);
    expect(concurrent.body).toMatchObject({
      error: { code: "concurrent_sandbox_limit_reached", retryable: false, details: { limit: 2, active: 2 } },
    });
    expect(await snapshot(client)).toEqual(before);

    expect((await client.destroy(second.id)).status).toBe(204);
    const monthly = await client.create();
    expect(monthly.status).toBe(429);
    expect(errorCode(monthly.body)).toBe("monthly_usage_limit_reached");
    expect(errorDetails(monthly.body)).toEqual({ limit_hours: 0.5, used_hours: 0.5 });
    // 2026-01-15T12:15Z to 2026-02-01T00:00Z.
    expect(monthly.headers.get("retry-after")).toBe(String(16 * 86_400 + 11 * 3600 + 45 * 60));
    const afterRefusal = await snapshot(client);
    // Both were created at the same instant, so the list's order between them is not asserted.
    expect(afterRefusal.sessions).toHaveLength(2);
    expect(afterRefusal.sessions).toEqual(
      expect.arrayContaining([
        [second.id, "destroyed"],
        [first.id, "active"],
      ]),
    );
    expect(afterRefusal.usage.total_sandboxes_created).toBe(2);
    expect((await client.destroy(first.id)).status).toBe(204);
  });

  it("refuses sizes and storage above the caps with their details, creating nothing", async () => {
    const client = await createSandboxClient(test);
    const large = await client.create({ size: "large" });
    expect(large.status).toBe(429);
    expect(large.body).toMatchObject({
      error: {
        code: "sandbox_size_limit_reached",
        retryable: false,
        details: { requested_size: "large", max_size: "medium" },
      },
    });
    const storage = await client.create({ storage_gb: 20.5 });
    expect(storage.status).toBe(429);
    expect(storage.body).toMatchObject({
      error: {
        code: "sandbox_storage_limit_reached",
        details: { requested_storage_gb: 20.5, max_storage_gb: 20 },
      },
    });
    expect((await client.list()).body).toEqual([]);
    expect((await client.usage()).body.total_sandboxes_created).toBe(0);
    // The caps themselves are allowed.
    const medium = await client.createActive({ size: "medium", storage_gb: 20 });
    expect((await client.exec(medium.id, "echo medium")).body.stdout).toBe("medium\n");
    expect((await client.destroy(medium.id)).status).toBe(204);
  });

  it("bills destroyed sessions until destroyed, expired ones until expiry and running ones until now", async () => {
    const client = await createSandboxClient(test);
    const start = clock.now().getTime();
    const expiring = await client.createActive({ lifetime_minutes: 10 });
    expect(Date.parse(expiring.expires_at) - Date.parse(expiring.created_at)).toBe(10 * minute);
    const destroyed = await client.createActive();
    clock.advance(6 * minute);
    expect((await client.destroy(destroyed.id)).status).toBe(204);
    // Past the first session's expiry; the reaper has not come by, billing stopped anyway.
    clock.advance(20 * minute);
    const running = await client.createActive();
    expect(running.usage).toMatchObject({
      monthly_sandbox_hours_used: round((10 + 6) / 60),
      concurrent_sandboxes: 1,
      total_sandboxes_created: 3,
    });
    clock.advance(3 * minute);
    expect((await client.usage()).body).toMatchObject({
      monthly_sandbox_hours_used: round((10 + 6 + 3) / 60),
      concurrent_sandboxes: 1,
      total_sandboxes_created: 3,
    });

    // 10 + 6 + 14 minutes = the 0.5 hours: the next create is refused and bills nothing.
    clock.advance(11 * minute);
    const refused = await client.create();
    expect(refused.status).toBe(429);
    expect(errorDetails(refused.body)).toEqual({ limit_hours: 0.5, used_hours: 0.5 });
    const before = await snapshot(client);
    expect(before.usage.total_sandboxes_created).toBe(3);
    expect((await client.create()).status).toBe(429);
    expect(await snapshot(client)).toEqual(before);
    expect(clock.now().getTime() - start).toBe(40 * minute);
    expect((await client.destroy(running.id)).status).toBe(204);
  });

  it("returns an array for count > 1 and applies the cap to the whole batch", async () => {
    const client = await createSandboxClient(test);
    const tooMany = await client.create({ count: 3 });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toMatchObject({
      error: { code: "concurrent_sandbox_limit_reached", details: { limit: 2, active: 0 } },
    });
    expect((await client.list()).body).toEqual([]);

    const pair = await client.sendJson<Array<{ id: string; status: string; usage: unknown }>>(
      "/v1/sandboxes",
      { method: "POST", json: { count: 2, label: "pair" } },
    );
    expect(pair.status).toBe(201);
    expect(Array.isArray(pair.body)).toBe(true);
    expect(pair.body).toHaveLength(2);
    expect(new Set(pair.body.map((session) => session.id)).size).toBe(2);
    for (const session of pair.body) {
      expect(session).toMatchObject({ status: "active", label: "pair", usage: { concurrent_sandboxes: 2 } });
      expect((await client.exec(session.id, "pwd")).body.stdout).toBe("/workspace\n");
    }
    expect((await client.destroy(pair.body[0].id)).status).toBe(204);

    const overflow = await client.create({ count: 2 });
    expect(overflow.status).toBe(429);
    expect(errorDetails(overflow.body)).toEqual({ limit: 2, active: 1 });
    expect((await client.list(true)).body.map((session) => session.id)).toEqual([pair.body[1].id]);
    expect((await client.destroy(pair.body[1].id)).status).toBe(204);
  });

  it("starts a new month with a fresh allowance, billing only this month's part of a session", async () => {
    const client = await createSandboxClient(test);
    clock.set(new Date("2026-01-31T23:50:00Z"));
    const session = await client.createActive();
    clock.advance(25 * minute);
    // 10 minutes in January, 15 in February: February's figure counts 15.
    expect((await client.usage()).body.monthly_sandbox_hours_used).toBe(0.25);
    expect((await client.destroy(session.id)).status).toBe(204);
    expect((await client.createActive()).usage.monthly_sandbox_hours_used).toBe(0.25);
  });

  it("creates and bills nothing when the runtime fails, and says only 502", async () => {
    const client = await createSandboxClient(test);
    const sandboxes = join(test.dataDir, "sandboxes");
    // A file where the runtime keeps its sandbox directories: every create fails on disk.
    await rename(sandboxes, `${sandboxes}.moved`);
    await writeFile(sandboxes, "not a directory");
    try {
      const failed = await client.create({ count: 2 });
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ error: { code: "sandbox_operation_failed" } });
      expect(JSON.stringify(failed.body)).not.toContain(test.dataDir);
    } finally {
      await rm(sandboxes);
      await rename(`${sandboxes}.moved`, sandboxes);
    }
    expect((await client.list()).body).toEqual([]);
    expect((await client.usage()).body).toMatchObject({
      concurrent_sandboxes: 0,
      total_sandboxes_created: 0,
    });
    // The failed batch holds no slot.
    const pair = await client.create({ count: 2 });
    expect(pair.status).toBe(201);
  });

  it("answers GET /v1/account for the key's account", async () => {
    const client = await createSandboxClient(test);
    const account = await client.sendJson<{ id: string; email: string }>("/v1/account");
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ id: client.accountId, email: client.email });
  });
});

function round(hours: number): number {
  return Math.round(hours * 10_000) / 10_000;
}
