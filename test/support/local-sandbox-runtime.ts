/** Shared set-up of the runtime tests: a throw-away data directory and small helpers. */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxSize, SandboxSpec } from "../../core/ports/sandbox-runtime.ts";
import {
  createLocalSandboxRuntime,
  defaultBubblewrapPath,
  type LocalSandboxRuntime,
  type LocalSandboxRuntimeSettings,
} from "../../plugins/sandbox-local/create-local-sandbox-runtime.ts";
import { defaultMountDirectory } from "../../plugins/sandbox-local/session-disk.ts";

export interface TestRuntime {
  runtime: LocalSandboxRuntime;
  dataDir: string;
  createSandbox(options?: Partial<SandboxSpec>): Promise<string>;
  run(id: string, command: string, timeoutSeconds?: number): ReturnType<LocalSandboxRuntime["exec"]>;
  /** The host directory behind a sandbox's /workspace (on its mounted disk). */
  hostWorkspace(id: string): string;
  cleanUp(): Promise<void>;
}

export async function createTestRuntime(
  settings: Partial<LocalSandboxRuntimeSettings> = {},
): Promise<TestRuntime> {
  // Not under /tmp: host paths of the data directory must not look like sandbox paths (/tmp/…).
  const dataDir = settings.dataDir ?? (await mkdtemp(join("/var/tmp", "cairn-sandbox-local-")));
  const runtime = createLocalSandboxRuntime({ dataDir, ...settings });
  return {
    runtime,
    dataDir,
    async createSandbox(options = {}) {
      const id = options.id ?? randomUUID();
      await runtime.create({
        id,
        accountId: randomUUID(),
        size: "small" as SandboxSize,
        storageGb: null,
        egressHosts: [],
        volumeMounts: [],
        ...options,
      });
      return id;
    },
    run: (id, command, timeoutSeconds = 10) => runtime.exec(id, { command, timeoutSeconds }),
    hostWorkspace: (id) => join(defaultMountDirectory(dataDir), id, "workspace"),
    async cleanUp() {
      for (const id of await runtime.list()) await runtime.destroy(id);
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Host processes whose command line contains `marker` (to prove an exec left nothing behind). */
export async function hostProcessesMatching(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = (await readFile(`/proc/${entry}/cmdline`, "utf8")).replaceAll("\0", " ");
      if (commandLine.includes(marker) && Number(entry) !== process.pid) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/**
 * A sleep duration (about `seconds`) unique to this call, to find the processes of one exec on the
 * host: other test runs on the same machine must not match it.
 */
export function uniqueSeconds(seconds: number): string {
  return `${seconds}.${String(Math.random()).slice(2, 12).padEnd(10, "7")}`;
}

/** The host processes of a session's uid, as `ps -u` lists them (empty when there are none). */
export async function processesOfUser(uid: number): Promise<Array<{ pid: number; command: string }>> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile("ps", ["-u", String(uid), "-o", "pid=,args="], (error, stdout) => {
      // ps exits with 1 when no process matched.
      if (error !== null && (error as { code?: unknown }).code !== 1) reject(error);
      else resolve(stdout);
    });
  });
  return output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const match = /^\s*(\d+)\s+(.*)$/.exec(line);
      return { pid: Number(match?.[1]), command: match?.[2] ?? "" };
    });
}

/** The session's host uid, from its record on the data directory. */
export async function sessionUserId(dataDir: string, id: string): Promise<number> {
  const record = JSON.parse(await readFile(join(dataDir, "sandboxes", id, "sandbox.json"), "utf8"));
  return record.uid as number;
}

/** Polls `check` until it returns true (every 50 ms, at most `seconds`); returns its last answer. */
export async function eventually(check: () => Promise<boolean>, seconds = 10): Promise<boolean> {
  for (let waited = 0; waited < seconds * 1000; waited += 50) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** Where the tests' runtimes find bubblewrap: the runtime's default. */
export const bubblewrapPath = defaultBubblewrapPath;

/** A session's init on the host: bwrap outside, bwrap as the sandbox's pid 1, and its `cat`. */
export async function initProcesses(uid: number): Promise<Array<{ pid: number; command: string }>> {
  return (await processesOfUser(uid)).filter(
    (entry) => entry.command.startsWith(`${bubblewrapPath} `) || entry.command === "/bin/cat",
  );
}

/** `initProcesses` once the init's shell has become `cat`: a session is ready as soon as the
 * shell prints "ready", a moment before its `exec` (a busy machine widens that moment). */
export async function settledInitProcesses(uid: number): Promise<Array<{ pid: number; command: string }>> {
  await eventually(async () => (await initProcesses(uid)).length === 3);
  return initProcesses(uid);
}
