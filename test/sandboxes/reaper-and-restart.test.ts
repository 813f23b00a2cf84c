/**
 * Session ends without a request: the reaper ends sessions at `expires_at` (and bills them until
 * then), and a restart on the same disk and database re-adopts live sandboxes, cleans up expired
 * and orphaned ones, and ends sessions whose sandbox is gone. Injected clock, real bubblewrap.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes, reconcileSandboxes } from "../../core/index.ts";
import { defaultMountDirectory } from "../../plugins/sandbox-local/session-disk.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { createTestDatabase, storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  expectNotFoundEverywhere,
  type SandboxClient,
} from "./sandbox-client.ts";

const minute = 60_000;

describe.each(storageTargets)("the reaper on %s", (target) => {
  const clock = createFakeClock(new Date("2026-05-20T09:00:00Z"));
  let test: TestPlatform;
  let client: SandboxClient;
  const sandboxDirectory = (id: string) => join(test.dataDir, "sandboxes", id);

  beforeAll(async () => {
    test = await createSandboxPlatform(target, { clock });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("validates lifetime_minutes against SVC_MAX_SESSION_MINUTES", async () => {
    for (const lifetime of [31, 0, 2.5]) {
      const refused = await client.create({ lifetime_minutes: lifetime });
      expect([lifetime, refused.status, errorCode(refused.body)]).toEqual([
        lifetime,
        422,
        "validation_error",
      ]);
    }
    expect((await client.list()).body).toEqual([]);
  });

  it("ends sessions at expires_at, removes their sandbox and leaves the others running", async () => {
    const short = await client.createActive({ lifetime_minutes: 5 });
    const long = await client.createActive();
    expect(Date.parse(short.expires_at) - Date.parse(short.created_at)).toBe(5 * minute);
    expect(Date.parse(long.expires_at) - Date.parse(long.created_at)).toBe(30 * minute);
    expect((await client.exec(short.id, "echo alive > note.txt")).status).toBe(200);
    expect(existsSync(join(defaultMountDirectory(test.dataDir), short.id, "workspace", "note.txt"))).toBe(
      true,
    );

    clock.advance(5 * minute - 1);
    expect(await reapExpiredSandboxes(test.platform)).toBe(0);
    expect((await client.exec(short.id, "cat note.txt")).body.stdout).toBe("alive\n");

    // The reaper comes by well after the expiry; the session still ends, and bills, at expires_at.
    clock.advance(7 * minute + 1);
    expect(await reapExpiredSandboxes(test.platform)).toBe(1);
    expect(await reapExpiredSandboxes(test.platform)).toBe(0);
    const ended = (await client.get(short.id)).body;
    expect(ended).toMatchObject({
      status: "destroyed",
      ended_reason: "expired",
      destroyed_at: short.expires_at,
      connect: null,
    });
    expect(existsSync(sandboxDirectory(short.id))).toBe(false);
    await expectNotFoundEverywhere(client, short.id);

    expect((await client.exec(long.id, "echo still here")).body.stdout).toBe("still here\n");
    expect((await client.usage()).body).toMatchObject({
      concurrent_sandboxes: 1,
      monthly_sandbox_hours_used: round((5 + 12) / 60),
    });
    expect((await client.list(true)).body.map((session) => session.id)).toEqual([long.id]);

    clock.advance(30 * minute);
    // Expired but not yet reaped: already unusable, and shown as what the reaper will make it.
    expect((await client.exec(long.id, "true")).status).toBe(404);
    const expiredView = { status: "destroyed", ended_reason: "expired", destroyed_at: long.expires_at };
    expect((await client.get(long.id)).body).toMatchObject({ ...expiredView, connect: null });
    expect((await client.list()).body.find((session) => session.id === long.id)).toMatchObject(expiredView);
    expect((await client.list(true)).body).toEqual([]);
    expect(await reapExpiredSandboxes(test.platform)).toBe(1);
    expect((await client.get(long.id)).body).toMatchObject({
      status: "destroyed",
      ended_reason: "expired",
      destroyed_at: long.expires_at,
    });
    expect(existsSync(sandboxDirectory(long.id))).toBe(false);
    expect((await client.usage()).body.monthly_sandbox_hours_used).toBe(round((5 + 30) / 60));
  });

  it("records a destroy as ended_reason destroyed, and a destroyed session is 404 on every route", async () => {
    const session = await client.createActive();
    clock.advance(minute);
    expect((await client.destroy(session.id)).status).toBe(204);
    expect((await client.get(session.id)).body).toMatchObject({
      status: "destroyed",
      ended_reason: "destroyed",
      destroyed_at: clock.now().toISOString(),
      connect: null,
    });
    expect(existsSync(sandboxDirectory(session.id))).toBe(false);
    await expectNotFoundEverywhere(client, session.id);
    expect(await reapExpiredSandboxes(test.platform)).toBe(0);
  });
});

describe.each(storageTargets)("a restart on %s", (target) => {
  const clock = createFakeClock(new Date("2026-05-20T09:00:00Z"));
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  // Platforms still open if an assertion fails mid-way; each is closed once.
  const running = new Set<TestPlatform>();
  const open = async () => {
    const platform = await createSandboxPlatform(target, { clock, dataDir, databaseUrl: database?.url });
    running.add(platform);
    return platform;
  };
  /** Stops the server without destroying anything: the data dir and the database stay. */
  const stop = async (platform: TestPlatform) => {
    running.delete(platform);
    await platform.platform.close();
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-restart-"));
    database = target === "postgresql" ? await createTestDatabase() : undefined;
  });
  afterAll(async () => {
    for (const platform of running) await stop(platform);
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("re-adopts live sandboxes and removes expired, lost and orphaned ones", async () => {
    const first = await open();
    const client = await createSandboxClient(first);
    const live = await client.createActive({ label: "live" });
    const expiring = await client.createActive({ lifetime_minutes: 2 });
    expect((await client.exec(live.id, "echo kept > kept.txt")).body.exit_code).toBe(0);
    const orphan = crypto.randomUUID();
    await first.platform.sandboxRuntime.create({
      id: orphan,
      accountId: client.accountId,
      size: "small",
      storageGb: null,
      egressHosts: [],
      volumeMounts: [],
    });
    await stop(first);
    expect(existsSync(join(dataDir, "sandboxes", expiring.id))).toBe(true);
    clock.advance(3 * minute);

    const second = await open();
    expect(await reconcileSandboxes(second.platform)).toEqual({ adopted: 1, removed: 2, ended: 0 });
    const again = await second.request(`/v1/sandboxes/${live.id}/exec`, {
      method: "POST",
      json: { command: "cat kept.txt" },
      credential: client.key,
    });
    expect(await again.json()).toMatchObject({ exit_code: 0, stdout: "kept\n" });
    const expired = await second.request(`/v1/sandboxes/${expiring.id}`, { credential: client.key });
    expect(await expired.json()).toMatchObject({
      status: "destroyed",
      ended_reason: "expired",
      destroyed_at: expiring.expires_at,
    });
    expect(existsSync(join(dataDir, "sandboxes", expiring.id))).toBe(false);
    expect(existsSync(join(dataDir, "sandboxes", orphan))).toBe(false);
    expect(await second.platform.sandboxRuntime.list()).toEqual([live.id]);

    // A sandbox lost from disk while the server was down: its session ends at the restart. The
    // local runtime is the only creator of its sandboxes, so a session from before the restart
    // cannot be one still starting, however young.
    await stop(second);
    await rm(join(dataDir, "sandboxes", live.id), { recursive: true, force: true });
    clock.advance(minute);
    const third = await open();
    expect(await reconcileSandboxes(third.platform)).toEqual({ adopted: 0, removed: 0, ended: 1 });
    const lost = await third.request(`/v1/sandboxes/${live.id}`, { credential: client.key });
    expect(await lost.json()).toMatchObject({
      status: "destroyed",
      ended_reason: "destroyed",
      destroyed_at: clock.now().toISOString(),
    });
    await stop(third);
  });
});

function round(hours: number): number {
  return Math.round(hours * 10_000) / 10_000;
}
