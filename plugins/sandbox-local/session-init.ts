/**
 * A sandbox's session init: one bwrap per sandbox, started at create (and after a restart), that
 * holds the sandbox's namespaces for as long as the session lives. The wrapper (exec.ts) joins the
 * sandbox's cgroups and drops to the session's uid before bwrap; bwrap's pid 1 reaps orphans and
 * its pid 2 waits on a pipe from the server (bubblewrap-arguments.ts). Every exec enters these
 * namespaces through the session helper. The init ends when it is killed (destroy, close), when
 * the server's process ends (the pipe closes), or when something kills its pid 1 (the memory
 * cgroup's OOM killer): the runtime then starts a fresh one for the next exec.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { bubblewrapArguments, type ExecMounts } from "./bubblewrap-arguments.ts";
import { seccompDescriptor, type WrapperOptions, wrapperScript } from "./exec.ts";

/** The descriptor bwrap writes its `--info-fd` JSON to (the host pid of the sandbox's pid 1). */
const infoDescriptor = 3;
const readyTimeoutMs = 30_000;

export interface SessionInit {
  /** Host pid of the sandbox's pid 1 and its start time (field 22 of /proc/<pid>/stat). */
  readonly pid: number;
  readonly startTime: string;
  /** Settles when the session's bwrap has exited. */
  readonly exited: Promise<void>;
  /** SIGKILLs the sandbox's pid 1 (the kernel ends its whole pid namespace) and waits for the end. */
  kill(): Promise<void>;
}

export interface SessionInitOptions extends WrapperOptions {
  bubblewrapPath: string;
  systemArguments: string[];
  mounts: ExecMounts;
  /** The spawn stdio array of the runtime (inherited-descriptors.ts); entries past 3 are used. */
  inheritedStdio: Array<"ignore" | "pipe" | number>;
}

export async function startSessionInit(options: SessionInitOptions): Promise<SessionInit> {
  const argumentsList = bubblewrapArguments(options.systemArguments, options.mounts, {
    seccomp: seccompDescriptor,
    info: infoDescriptor,
  });
  const child = spawn(
    "/bin/sh",
    ["-c", wrapperScript(options), "cairn-sandbox", options.bubblewrapPath, ...argumentsList],
    {
      stdio: ["pipe", "pipe", "pipe", "pipe", ...options.inheritedStdio.slice(4)],
      detached: true,
      env: { PATH: "/usr/bin:/bin" },
    },
  );
  const exited = new Promise<void>((resolve) => {
    child.once("close", () => resolve());
    child.once("error", () => resolve());
  });
  // Never written to: its end is what tells the init that the server is gone.
  child.stdin?.on("error", () => {});
  const info = child.stdio[infoDescriptor] as Readable;
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (errors.length < 4096) errors += chunk.toString("utf8");
  });
  let sandboxPid: number | undefined;
  const signal = (target: number | undefined) => {
    try {
      if (target !== undefined) process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  /**
   * SIGKILLs the sandbox's pid 1 (a session of its own, out of the wrapper's group): the kernel
   * ends its pid namespace and bwrap, which reaps it, exits. Killing bwrap first would leave pid 1
   * to the host's init to reap. The wrapper's group goes too if bwrap has not exited soon after.
   */
  const killEverything = async () => {
    // While bwrap runs, its pid 1 is its child and not yet reaped: the pid is still its own.
    if (child.exitCode === null && child.signalCode === null) signal(sandboxPid);
    if (sandboxPid === undefined) signal(child.pid === undefined ? undefined : -child.pid);
    const late = setTimeout(() => signal(child.pid === undefined ? undefined : -child.pid), 2000);
    await exited;
    clearTimeout(late);
  };
  try {
    const { pid, startTime } = await Promise.all([
      readChildPid(info).then((pid) => {
        sandboxPid = pid;
        return pid;
      }),
      waitForLine(child.stdout as Readable, "ready"),
    ])
      .then(async ([pid]) => ({ pid, startTime: await readStartTime(pid) }))
      .catch(async (error: unknown) => {
        await killEverything();
        throw new Error(`the session's bwrap did not start: ${errors.trim() || String(error)}`);
      });
    return { pid, startTime, exited, kill: killEverything };
  } finally {
    info.destroy();
  }
}

function readChildPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("no child pid from bwrap in time")), readyTimeoutMs);
    info.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    info.once("end", () => {
      clearTimeout(timer);
      reject(new Error("bwrap ended before it named its child"));
    });
  });
}

function waitForLine(stream: Readable, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new Error("the session did not become ready in time")),
      readyTimeoutMs,
    );
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes(`${line}\n`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    stream.once("end", () => {
      clearTimeout(timer);
      reject(new Error("the session ended before it was ready"));
    });
  });
}

async function readStartTime(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[22 - 3];
}
