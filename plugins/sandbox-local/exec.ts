/**
 * Running a command in a sandbox's session. The session's init (session-init.ts) holds the
 * sandbox's namespaces; each exec is the session helper (lib/sandbox-isolation/session-helper.c),
 * as root, forked by its serving instance (session-spawner.ts there) or, for a session process,
 * started directly; it joins the sandbox's cgroups, sets the rlimits, enters the session's
 * namespaces as the session's own host uid, gives the command a pid and mount namespace of its
 * own, drops every capability, sets no_new_privs and loads the seccomp filter before the
 * command's first instruction. Its settings and the command are one text (helperSettings).
 * Output beyond the caps (or, under a budget, between the head and the tail it keeps) is read
 * and dropped (the child never blocks on a full pipe). A timeout or an abort SIGKILLs the helper's
 * process group and sweeps the exec's cgroup; the exec's pid namespace ends with its pid 1,
 * taking the rest.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import type { Writable } from "node:stream";
import { createOutputKeeper, joinKeptOutput, ServiceError } from "../../core/index.ts";
import type { ExecOutputBudget, ExecResult, SandboxSize } from "../../core/ports/sandbox-runtime.ts";
import { type LimitOptions, limitSettings, type SessionSpawner } from "../../lib/sandbox-isolation/index.ts";
import { sandboxEnvironment } from "./bubblewrap-arguments.ts";

export const stdoutCapBytes = 1024 * 1024;
export const stderrCapBytes = 256 * 1024;
/** How much of stderr's start tells a set-up failure, kept apart from what a budget keeps. */
const setupLineBytes = 4096;
/** The exit code reported when the timeout killed the command (as GNU timeout does). */
export const timedOutExitCode = 124;
/** The exit code of the wrapper and the helper when they could not set the sandbox up; their stderr line starts with the prefix. */
export const setupFailureExitCode = 125;
export const setupFailurePrefix = "cairn-sandbox:";
/**
 * The helper's line when the sandbox's processes left no room to start the exec
 * (lib/sandbox-isolation/session-helper.c).
 */
export const processLimitLine = `${setupFailurePrefix} process limit reached`;

export interface SessionCommand extends LimitOptions {
  /** The session helper binary (lib/sandbox-isolation/session-helper.ts). */
  helperPath: string;
  /** The session's init: its host pid and start time (field 22 of /proc/<pid>/stat). */
  init: { pid: number; startTime: string };
  command: string;
  /** The compiled seccomp filter (lib/sandbox-isolation/seccomp.ts). */
  seccompFile: string;
  /** Size of the exec's own /dev/shm tmpfs. */
  sharedMemoryBytes: number;
  /** The command's whole environment; the sandbox's default (bubblewrap-arguments.ts) when absent. */
  environment?: Record<string, string>;
  /**
   * A host directory bound read-only at `target` in the command's own mount namespace only (the
   * language servers of a session process); `target` must exist in the sandbox.
   */
  readOnlyBind?: { source: string; target: string };
}

/** The helper's settings (`key value` lines, an empty line) followed by the command. */
export function helperSettings(options: SessionCommand): string {
  const lines = [`init-pid ${options.init.pid}`, `init-start ${options.init.startTime}`];
  lines.push(...limitSettings(options), `seccomp ${options.seccompFile}`);
  for (const [name, value] of Object.entries(options.environment ?? sandboxEnvironment)) {
    lines.push(`env ${name}=${value}`);
  }
  lines.push("workdir /workspace", `shm-bytes ${options.sharedMemoryBytes}`);
  if (options.readOnlyBind) {
    const { source, target } = options.readOnlyBind;
    if (/\n/.test(source + target)) throw new Error("a bound path must not contain a newline");
    lines.push(`bind-source ${source}`, `bind-target ${target}`);
  }
  return `${lines.join("\n")}\n\n${options.command}`;
}

/**
 * Starts the helper for one command. stdin is /dev/null for an exec and a pipe for a long-running
 * session process; stdout and stderr are pipes. Its own process group (`detached`) is what a
 * timeout kills.
 */
export function spawnInSession(options: SessionCommand, stdin: "ignore" | "pipe"): ChildProcess {
  const child = spawn(options.helperPath, [], {
    // What the sandbox reads in /proc/1/cmdline: no host path.
    argv0: "cairn-session",
    stdio: [stdin, "pipe", "pipe", "pipe"],
    detached: true,
    env: {},
  });
  const settings = child.stdio[3] as Writable | null;
  // A helper that dies before reading all of it closes the pipe: its exit status says why.
  settings?.on("error", () => {});
  settings?.end(helperSettings(options));
  return child;
}

export interface RunOptions extends SessionCommand {
  /** The sandbox's size, named when its process limit refuses the exec. */
  size: SandboxSize;
  /** The runtime's helper in serve mode, which forks the exec's helper. */
  spawner: SessionSpawner;
  timeoutSeconds: number;
  signal?: AbortSignal;
  /** What to keep of each stream in place of the caps (ExecRequest.budget). */
  budget?: ExecOutputBudget;
  /** Each chunk of output as it is read, before the caps (ExecRequest.onOutput). */
  onOutput?: (stream: "stdout" | "stderr", bytes: Uint8Array) => void;
  /** Kills the exec without rejecting (destroy and close use it; the result shows the kill). */
  terminate?: AbortSignal;
  /** Kills whatever the process group kill cannot reach (the exec's cgroup). */
  sweep?: () => Promise<void>;
}

export async function runInSession(options: RunOptions): Promise<ExecResult> {
  const { signal } = options;
  if (signal?.aborted) throw signal.reason;
  const started = performance.now();
  // Under a budget the exec keeps what its cut needs of the whole output (a ring for the tail).
  const stdout = createOutputKeeper(stdoutCapBytes, options.budget);
  const stderr = createOutputKeeper(stderrCapBytes, options.budget);
  // The helper's set-up failure line, whatever part of stderr the budget keeps.
  const stderrStart = createOutputKeeper(setupLineBytes);
  const command = options.spawner.run(helperSettings(options), {
    stdout(chunk) {
      stdout.add(chunk);
      options.onOutput?.("stdout", chunk);
    },
    stderr(chunk) {
      stderr.add(chunk);
      stderrStart.add(chunk);
      options.onOutput?.("stderr", chunk);
    },
  });

  let timedOut = false;
  let aborted = false;
  const killEverything = () => {
    command.pid.then(
      (pid) => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      },
      () => {},
    );
    void options.sweep?.().catch(() => {});
  };
  // setTimeout fires at once for delays past 2^31 - 1 ms; core allows at most 3600 s anyway.
  const timer = setTimeout(
    () => {
      timedOut = true;
      killEverything();
    },
    Math.min(options.timeoutSeconds * 1000, 2_147_483_647),
  );
  const onAbort = () => {
    aborted = true;
    killEverything();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  options.terminate?.addEventListener("abort", killEverything, { once: true });
  if (options.terminate?.aborted) killEverything();

  try {
    const status = await command.status;
    if (aborted) throw signal?.reason;
    // A wait status: the exit code in bits 8-15, or the signal in bits 0-6.
    const killedBy = status & 0x7f;
    const code = killedBy === 0 ? (status >> 8) & 0xff : 128 + killedBy;
    const kept = { stdout: stdout.kept(), stderr: stderr.kept() };
    const stderrText = decoder.decode(joinKeptOutput(kept.stderr));
    const setupLine = decoder.decode(joinKeptOutput(stderrStart.kept()));
    if (code === setupFailureExitCode && setupLine.startsWith(processLimitLine)) {
      throw processLimitReached(options.size, options.limits.maxProcesses);
    }
    if (code === setupFailureExitCode && setupLine.startsWith(setupFailurePrefix)) {
      throw new ServiceError("sandbox_operation_failed", "The sandbox could not be set up", {
        cause: new Error(setupLine.trim()),
      });
    }
    return {
      exitCode: timedOut ? timedOutExitCode : code,
      stdout: decoder.decode(joinKeptOutput(kept.stdout)),
      stderr: stderrText,
      timedOut,
      truncated: stdout.truncated() || stderr.truncated(),
      durationMs: Math.round(performance.now() - started),
      ...(options.budget && { output: kept }),
    };
  } catch (error) {
    if (error instanceof ServiceError || aborted) throw error;
    // The serving helper died under the exec: nothing of it may keep running.
    killEverything();
    throw new ServiceError("sandbox_operation_failed", "The sandbox command could not be started", {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    options.terminate?.removeEventListener("abort", killEverything);
  }
}

/**
 * The sandbox's own processes (other execs, what they left running) use up its process limit, so
 * the exec could not even start: the caller's limit, answered as such, not a runtime failure.
 */
export function processLimitReached(size: SandboxSize, limit: number): ServiceError {
  const larger = size === "large" ? "" : ", or create the sandbox with a larger size";
  return new ServiceError(
    "sandbox_process_limit_reached",
    `The sandbox's processes use up its limit of ${limit}; the command could not be started`,
    {
      details: { limit, size },
      remediation: `A ${size} sandbox runs at most ${limit} processes and threads at once: wait for its other commands to finish or run fewer processes in parallel${larger}.`,
    },
  );
}

const decoder = new TextDecoder();

/** A word for `sh -c` that stands for `value` exactly. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export function signalNumber(signalName: string | null): number {
  if (signalName === null) return 0;
  return constants.signals[signalName as keyof typeof constants.signals] ?? 0;
}
