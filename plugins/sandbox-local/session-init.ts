/**
 * A sandbox's session init: one bwrap per sandbox, started at create (and after a restart), that
 * holds the sandbox's namespaces for as long as the session lives. The serving helper
 * (lib/sandbox-isolation/session-spawner.ts) forks it, joins the sandbox's cgroups, sets the
 * rlimits, opens the seccomp filter and drops to the session's uid with no_new_privs before it
 * executes bwrap; bwrap's pid 1 reaps orphans and its pid 2 waits on the helper's never-written
 * pipe (bubblewrap-arguments.ts). Every exec enters these namespaces
 * through the session helper. The init ends when it is killed (destroy, close), when the serving
 * helper ends (with the server's process: the pipe closes), or when something kills its pid 1
 * (the memory cgroup's OOM killer): the runtime then starts a fresh one for the next exec.
 */
import { readFile } from "node:fs/promises";
import { limitSettings, type SessionSpawner, seccompDescriptor } from "../../lib/sandbox-isolation/index.ts";
import { bubblewrapArguments, type ExecMounts } from "./bubblewrap-arguments.ts";
import type { SessionCommand } from "./exec.ts";

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

export interface SessionInitOptions
  extends Pick<SessionCommand, "cgroupTaskFiles" | "limits" | "addressSpaceLimit" | "seccompFile"> {
  /** The session's host uid and gid. */
  user: { uid: number; gid: number };
  spawner: SessionSpawner;
  bubblewrapPath: string;
  systemArguments: string[];
  mounts: ExecMounts;
}

export async function startSessionInit(options: SessionInitOptions): Promise<SessionInit> {
  const argumentsList = bubblewrapArguments(options.systemArguments, options.mounts, {
    seccomp: seccompDescriptor,
    info: infoDescriptor,
  });
  let output = "";
  let info = "";
  let errors = "";
  let onProgress = () => {};
  const settings = [...limitSettings(options), `seccomp ${options.seccompFile}`, `uid ${options.user.uid}`];
  const command = options.spawner.runSession(
    `${settings.join("\n")}\n\n`,
    [options.bubblewrapPath, ...argumentsList],
    {
      stdout(chunk) {
        if (output.length < 4096) output += chunk.toString("utf8");
        onProgress();
      },
      stderr(chunk) {
        if (errors.length < 4096) errors += chunk.toString("utf8");
      },
      extra(chunk) {
        if (info.length < 4096) info += chunk.toString("utf8");
        onProgress();
      },
    },
  );
  let running = true;
  const exited = command.status.then(
    () => {},
    () => {},
  );
  void exited.then(() => {
    running = false;
    onProgress();
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
    const group = await command.pid.catch(() => undefined);
    // While bwrap runs, its pid 1 is its child and not yet reaped: the pid is still its own.
    if (running) signal(sandboxPid);
    if (sandboxPid === undefined && group !== undefined) signal(-group);
    const late = setTimeout(() => signal(group === undefined ? undefined : -group), 2000);
    await exited;
    clearTimeout(late);
  };
  try {
    // bwrap names its pid 1 on descriptor 3; the shell says "ready" once every namespace and
    // mount is in place.
    sandboxPid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("the session did not become ready in time")),
        readyTimeoutMs,
      );
      onProgress = () => {
        const match = /"child-pid"\s*:\s*(\d+)/.exec(info);
        if (match !== null && output.includes("ready\n")) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        } else if (!running) {
          clearTimeout(timer);
          reject(new Error("the session ended before it was ready"));
        }
      };
      onProgress();
    });
    onProgress = () => {};
    const startTime = await readStartTime(sandboxPid);
    return { pid: sandboxPid, startTime, exited, kill: killEverything };
  } catch (error) {
    onProgress = () => {};
    const named = /"child-pid"\s*:\s*(\d+)/.exec(info);
    if (named !== null) sandboxPid = Number(named[1]);
    await killEverything();
    throw new Error(`the session's bwrap did not start: ${errors.trim() || String(error)}`);
  }
}

async function readStartTime(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[22 - 3];
}
