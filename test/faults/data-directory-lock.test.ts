/**
 * One process serves a data directory at a time (platform/data-directory-lock.ts): a second server
 * on the directory of a running one, on Node and on Deno, exits 1 with one line and leaves the
 * first serving (its sandbox disks mounted); once the first stops, or is killed, the directory
 * can be served again.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serverRuntimes, signUpWithKey, startServer } from "../support/processes.ts";

const [node] = serverRuntimes;

/** Starts a server and waits for it to exit (one that keeps running is killed, and fails the assertion). */
function startAndWaitForExit(runtime: (typeof serverRuntimes)[number], dataDir: string) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(runtime.command, runtime.args, {
      env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: "0", SVC_LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a data directory another server serves", () => {
  let dataDir: string;
  let first: RunningServer;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-lock-"));
    first = await startServer(node.command, node.args, { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" });
  }, 60_000);
  afterAll(async () => {
    await first?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each(serverRuntimes)(
    "is refused to a second server on $name in one line, and the first serves on",
    async (runtime) => {
      const { code, stderr } = await startAndWaitForExit(runtime, dataDir);
      expect(stderr).toBe(
        `cairn: cannot serve ${dataDir}: another process (pid ${first.process.pid}) is serving it, and one process serves a data directory at a time\n`,
      );
      expect(code).toBe(1);
      await signUpWithKey(first.baseUrl);
    },
    60_000,
  );

  it("is served again once the first is killed with SIGKILL (its lock is taken over)", async () => {
    const exited = new Promise((resolve) => first.process.once("exit", resolve));
    first.process.kill("SIGKILL");
    await exited;
    first = await startServer(node.command, node.args, { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" });
    await signUpWithKey(first.baseUrl);
  }, 60_000);
});
