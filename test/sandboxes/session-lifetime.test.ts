/**
 * A local sandbox's session (its init and every process started in it) lives exactly as long as
 * the session: it ends at expiry (the reaper), when a restart's reconciliation ends the session,
 * and when the server process dies, even by SIGKILL; a restart re-adopts a live session with a
 * fresh init. Real bubblewrap; what is left is counted on the host by the session's uid with `ps`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes, reconcileSandboxes } from "../../core/index.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  eventually,
  initProcesses,
  processesOfUser,
  sessionUserId,
  settledInitProcesses,
} from "../support/local-sandbox-runtime.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const minute = 60_000;
const root = resolve(import.meta.dirname, "../..");

describe("a session's processes end with it", () => {
  const clock = createFakeClock(new Date("2026-06-01T09:00:00Z"));
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { clock });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("at expiry, when the reaper ends the session", async () => {
    const session = await client.createActive({ lifetime_minutes: 5 });
    const uid = await sessionUserId(test.dataDir, session.id);
    const running = client.exec(session.id, "sleep 1000 & sleep 1000", 60);
    expect(await eventually(async () => (await processesOfUser(uid)).length >= 5)).toBe(true);
    expect(await settledInitProcesses(uid)).toHaveLength(3);
    clock.advance(5 * minute);
    expect(await reapExpiredSandboxes(test.platform)).toBe(1);
    expect((await running).body.exit_code).not.toBe(0);
    expect(await processesOfUser(uid)).toEqual([]);
  });
});

describe("a restart", () => {
  const clock = createFakeClock(new Date("2026-06-01T09:00:00Z"));
  let dataDir: string;
  const open = new Set<TestPlatform>();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-session-restart-"));
  });
  afterAll(async () => {
    for (const platform of open) await platform.platform.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("ends the processes of a session that expired while the server was down, and re-adopts a live one with a fresh init", async () => {
    const first = await createSandboxPlatform("sqlite", { clock, dataDir });
    open.add(first);
    const client = await createSandboxClient(first);
    const live = await client.createActive();
    const expiring = await client.createActive({ lifetime_minutes: 2 });
    expect((await client.exec(live.id, "echo kept > kept.txt")).body.exit_code).toBe(0);
    expect((await client.exec(expiring.id, "true")).body.exit_code).toBe(0);
    const liveUid = await sessionUserId(dataDir, live.id);
    const expiringUid = await sessionUserId(dataDir, expiring.id);
    const before = (await settledInitProcesses(liveUid)).map((entry) => entry.pid);
    expect(before).toHaveLength(3);

    open.delete(first);
    await first.platform.close();
    expect(await processesOfUser(liveUid)).toEqual([]);
    expect(await processesOfUser(expiringUid)).toEqual([]);
    clock.advance(3 * minute);

    const second = await createSandboxPlatform("sqlite", { clock, dataDir });
    open.add(second);
    expect(await reconcileSandboxes(second.platform)).toEqual({ adopted: 1, removed: 1, ended: 0 });
    expect(await processesOfUser(expiringUid)).toEqual([]);
    expect(await eventually(async () => (await initProcesses(liveUid)).length === 3)).toBe(true);
    expect((await initProcesses(liveUid)).some((entry) => before.includes(entry.pid))).toBe(false);
    const again = await second.request(`/v1/sandboxes/${live.id}/exec`, {
      method: "POST",
      json: { command: "cat kept.txt" },
      credential: client.key,
    });
    expect(await again.json()).toMatchObject({ exit_code: 0, stdout: "kept\n" });
    open.delete(second);
    await second.platform.close();
    expect(await processesOfUser(liveUid)).toEqual([]);
  });
});

describe("a server killed with SIGKILL", () => {
  let dataDir: string;
  const servers: RunningServer[] = [];
  const start = async () => {
    const server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-session-kill-"));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("leaves no process of its sessions, and the next server gives the session a fresh init", async () => {
    const first = await start();
    const account = await signUpWithKey(first.baseUrl);
    const headers = { authorization: `Bearer ${account.key}`, "content-type": "application/json" };
    const created = await fetch(`${first.baseUrl}/v1/sandboxes`, { method: "POST", headers, body: "{}" });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const exec = (baseUrl: string, command: string, timeout = 10) =>
      fetch(`${baseUrl}/v1/sandboxes/${id}/exec`, {
        method: "POST",
        headers,
        body: JSON.stringify({ command, timeout }),
      });
    expect(await (await exec(first.baseUrl, "echo kept > kept.txt")).json()).toMatchObject({ exit_code: 0 });
    const uid = await sessionUserId(dataDir, id);
    // An exec still running when the server dies, with a background process of its own.
    void exec(first.baseUrl, "sleep 1000 & sleep 1000", 60).catch(() => {});
    expect(await eventually(async () => (await processesOfUser(uid)).length >= 5)).toBe(true);

    const exited = new Promise((resolve) => first.process.once("exit", resolve));
    first.process.kill("SIGKILL");
    await exited;
    servers.splice(servers.indexOf(first), 1);
    expect(await eventually(async () => (await processesOfUser(uid)).length === 0)).toBe(true);

    const second = await start();
    expect(await eventually(async () => (await initProcesses(uid)).length === 3)).toBe(true);
    expect(await (await exec(second.baseUrl, "cat kept.txt")).json()).toMatchObject({
      exit_code: 0,
      stdout: "kept\n",
    });
    const destroyed = await fetch(`${second.baseUrl}/v1/sandboxes/${id}`, { method: "DELETE", headers });
    expect(destroyed.status).toBe(204);
    expect(await processesOfUser(uid)).toEqual([]);
  });
});
