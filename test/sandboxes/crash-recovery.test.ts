/**
 * `kill -9` of the real server while a sandbox is being created and another runs an exec: nothing
 * of either survives the crash on the host (no bwrap or session process, no cgroup), and the next
 * server reconciles: the running sandbox is re-adopted (it works, and is billed as live), and the
 * one whose create the crash interrupted is re-adopted if its create had finished, else removed
 * with everything made for it and its session discarded (never handed out, never billed), and
 * destroying what is left leaves the host clean. Real bubblewrap and cgroups, SQLite.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCgroupsV1 } from "../../lib/sandbox-isolation/index.ts";
import { eventually, processesOfUser, sessionUserId } from "../support/local-sandbox-runtime.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

interface Session {
  id: string;
  status: string;
  created_at: string;
  destroyed_at: string | null;
  ended_reason: string | null;
}

describe("a server killed with SIGKILL during sandbox create and exec", () => {
  let dataDir: string;
  const servers: RunningServer[] = [];
  const start = async () => {
    const server = await startServer(process.execPath, [entry], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-sandbox-crash-"));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("leaves no orphan sandbox and bills nothing past the crash", async () => {
    const cgroups = await detectCgroupsV1("cairn");
    if (cgroups.manager === null) throw new Error(`cgroups are needed here: ${cgroups.reason}`);
    const { parents } = cgroups.manager;
    const cgroupsOf = (id: string) => Object.values(parents).filter((parent) => existsSync(join(parent, id)));

    const first = await start();
    const { key } = await signUpWithKey(first.baseUrl);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const api = (baseUrl: string, path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: init.method ?? "GET",
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });

    // One sandbox up and running an exec with a background process of its own.
    const running = (await (
      await api(first.baseUrl, "/v1/sandboxes", { method: "POST", body: {} })
    ).json()) as Session;
    void api(first.baseUrl, `/v1/sandboxes/${running.id}/exec`, {
      method: "POST",
      body: { command: "sleep 1000 & sleep 1000", timeout: 100 },
    }).catch(() => {});
    const runningUid = await sessionUserId(dataDir, running.id);
    expect(await eventually(async () => (await processesOfUser(runningUid)).length >= 5)).toBe(true);
    expect(cgroupsOf(running.id)).toHaveLength(3);

    // Another being created (a disk of its own size, formatted on the spot, so the create takes a
    // while): the crash comes as soon as the runtime marks it in progress on the data directory.
    const sandboxes = join(dataDir, "sandboxes");
    void api(first.baseUrl, "/v1/sandboxes", { method: "POST", body: { storage_gb: 3 } }).catch(() => {});
    let creating = "";
    for (let attempt = 0; attempt < 5_000 && creating === ""; attempt++) {
      const found = (await readdir(sandboxes)).find((name) => name !== running.id);
      if (found && existsSync(join(sandboxes, found, "creating"))) creating = found;
      else await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(creating).not.toBe("");
    const exited = new Promise((resolve) => first.process.once("exit", resolve));
    first.process.kill("SIGKILL");
    await exited;
    servers.splice(servers.indexOf(first), 1);

    // Nothing runs on past the server.
    expect(await eventually(async () => (await processesOfUser(runningUid)).length === 0)).toBe(true);
    const creatingUid = existsSync(join(sandboxes, creating, "sandbox.json"))
      ? await sessionUserId(dataDir, creating)
      : null;
    if (creatingUid !== null) expect(await processesOfUser(creatingUid)).toEqual([]);

    const second = await start();
    const sessions = async () => (await (await api(second.baseUrl, "/v1/sandboxes")).json()) as Session[];
    const works = async (id: string) => {
      const exec = await api(second.baseUrl, `/v1/sandboxes/${id}/exec`, {
        method: "POST",
        body: { command: "echo alive" },
      });
      return exec.status === 200 && ((await exec.json()) as { stdout: string }).stdout === "alive\n";
    };
    // Reconciliation runs in the background after start. The sandbox that was running is
    // re-adopted and works; the one being created is re-adopted too if its create had finished,
    // else it is gone: its session discarded (a create that never answered bills nothing, as a
    // failed one) and everything made for it removed.
    expect(await eventually(() => works(running.id))).toBe(true);
    const settled = async () => {
      const listed = (await sessions()).find((session) => session.id === creating);
      return listed === undefined || (listed.status === "active" && (await works(creating)));
    };
    expect(await eventually(settled)).toBe(true);
    const listed = await sessions();
    expect(listed.every((session) => session.status === "active")).toBe(true);
    if (!listed.some((session) => session.id === creating)) {
      expect(existsSync(join(sandboxes, creating))).toBe(false);
      expect(cgroupsOf(creating)).toEqual([]);
    }
    const adopted = listed.length;

    // Destroying what is left leaves the host clean.
    for (const session of await sessions()) {
      if (session.status === "active")
        expect((await api(second.baseUrl, `/v1/sandboxes/${session.id}`, { method: "DELETE" })).status).toBe(
          204,
        );
    }
    expect(await processesOfUser(runningUid)).toEqual([]);
    if (creatingUid !== null) expect(await processesOfUser(creatingUid)).toEqual([]);
    expect(cgroupsOf(running.id)).toEqual([]);
    expect(cgroupsOf(creating)).toEqual([]);
    expect(await readdir(sandboxes)).toEqual([]);
    // Only the sessions that were handed out count: an interrupted create is not billed.
    expect(await (await api(second.baseUrl, "/v1/usage")).json()).toMatchObject({
      concurrent_sandboxes: 0,
      total_sandboxes_created: adopted,
    });
  });
});
