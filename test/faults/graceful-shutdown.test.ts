/**
 * SIGTERM drains: the server stops taking connections at once, lets the requests in flight finish
 * (an exec of `sleep 2` answers in full), then exits 0; a request that outlasts
 * SVC_SHUTDOWN_TIMEOUT_SECONDS is cut at that deadline and the process still exits. The real Node
 * server with real bubblewrap sandboxes.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultMountDirectory } from "../../plugins/sandbox-local/session-disk.ts";
import { eventually } from "../support/local-sandbox-runtime.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

/** Whether a new TCP connection to the server's port is refused. */
function refused(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

describe("SIGTERM", () => {
  let dataDir: string;
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A server with one sandbox, and an exec in it that has started running. */
  async function execInFlight(command: string, environment: Record<string, string> = {}) {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-shutdown-"));
    const started = await startServer(process.execPath, [entry], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      ...environment,
    });
    server = started;
    const { key } = await signUpWithKey(started.baseUrl);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${started.baseUrl}/v1/sandboxes`, { method: "POST", headers, body: "{}" });
    const { id } = (await created.json()) as { id: string };
    const marker = join(defaultMountDirectory(dataDir), id, "workspace", "started");
    const exec = fetch(`${started.baseUrl}/v1/sandboxes/${id}/exec`, {
      method: "POST",
      headers,
      body: JSON.stringify({ command: `touch started && ${command}`, timeout: 100 }),
    });
    exec.catch(() => {});
    expect(await eventually(async () => existsSync(marker))).toBe(true);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      started.process.once("exit", (code, signal) => resolve({ code, signal })),
    );
    return { server: started, exec, exited };
  }

  it("lets an exec in flight finish, refuses new connections, and exits 0", async () => {
    const {
      server: running,
      exec,
      exited,
    } = await execInFlight("sleep 2 && echo finished", {
      SVC_SHUTDOWN_TIMEOUT_SECONDS: "60",
    });
    running.process.kill("SIGTERM");
    expect(await eventually(() => refused(running.baseUrl))).toBe(true);
    const answer = await exec;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ exit_code: 0, stdout: "finished\n", timed_out: false });
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it("cuts a request still running at SVC_SHUTDOWN_TIMEOUT_SECONDS and exits all the same", async () => {
    // The exec would run 90 s; the test's own timeout (30 s) fails it unless the deadline holds.
    const {
      server: running,
      exec,
      exited,
    } = await execInFlight("sleep 90", {
      SVC_SHUTDOWN_TIMEOUT_SECONDS: "1",
    });
    running.process.kill("SIGTERM");
    await expect(exec).rejects.toThrow();
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(running.output()).toContain("requests still in flight at the shutdown deadline were cut");
  });
});
