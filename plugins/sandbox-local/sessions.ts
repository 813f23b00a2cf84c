/**
 * The sessions of a runtime's sandboxes: each sandbox's init (session-init.ts), started once and
 * replaced when it dies, and what runs inside it — execs (exec.ts) and long-running session
 * processes — each tracked so that destroy and close can end them.
 */
import type { Readable, Writable } from "node:stream";
import { ServiceError } from "../../core/index.ts";
import type { Logger } from "../../core/ports/logger.ts";
import type { ExecRequest, ExecResult, SandboxSize } from "../../core/ports/sandbox-runtime.ts";
import type { CgroupManager, SessionSpawner, SizeLimits } from "../../lib/sandbox-isolation/index.ts";
import type { ExecMounts } from "./bubblewrap-arguments.ts";
import {
  runInSession,
  type SessionCommand,
  setupFailureExitCode,
  signalNumber,
  spawnInSession,
} from "./exec.ts";
import { terminateCommand } from "./process-tree.ts";
import { ownerOf, type SandboxRecord } from "./sandbox-records.ts";
import { sessionEnvironment } from "./session-environment.ts";
import { type SessionInit, startSessionInit } from "./session-init.ts";

/**
 * A long-running process in a sandbox's session (a language server): piped stdio, the isolation
 * of an exec, no timeout; it ends when killed or with its session.
 */
export interface SessionProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The exit status (128 + N for signal N). */
  readonly exited: Promise<number>;
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: Promise<number | null>;
  /** SIGKILLs it and everything it started; settles once it has exited. */
  kill(): Promise<void>;
  /** SIGTERMs the command and what it started, not the helpers around it (process-tree.ts). */
  terminate(): Promise<void>;
}

/** What the runtime has once it started: cgroups (or none) and the session helper. */
export interface AvailableState {
  cgroups: CgroupManager | null;
  helperPath: string;
  spawner: SessionSpawner;
}

export interface SessionManagerOptions {
  logger: Logger;
  sizes: Record<SandboxSize, SizeLimits>;
  bubblewrapPath: string;
  systemArguments: string[];
  seccompFile: string;
  /** The session's mounts (its disk, /etc, its volumes). */
  mountsOf(record: SandboxRecord): ExecMounts;
  /** Creates the sandbox's cgroups once. */
  ensureCgroups(cgroups: CgroupManager, record: SandboxRecord): Promise<void>;
  isClosed(): boolean;
}

interface RunningExec {
  terminate: AbortController;
  done: Promise<unknown>;
}

let execCounter = 0;

export function createSessionManager(options: SessionManagerOptions) {
  const { logger, sizes, bubblewrapPath, systemArguments, seccompFile, ensureCgroups } = options;
  const running = new Map<string, Set<RunningExec>>();
  /** Session inits by sandbox id, while starting or running. */
  const inits = new Map<string, Promise<SessionInit>>();
  const sharedMemoryBytes = (record: SandboxRecord) => Math.floor(sizes[record.size].memoryBytes / 4);

  async function terminateRunning(id: string): Promise<void> {
    const executions = [...(running.get(id) ?? [])];
    for (const execution of executions) execution.terminate.abort();
    await Promise.allSettled(executions.map((execution) => execution.done));
  }

  /** The session init of a sandbox: the running one, or a new one (after a restart or its death). */
  function ensureInit(record: SandboxRecord, state: AvailableState): Promise<SessionInit> {
    const existing = inits.get(record.id);
    if (existing !== undefined) return existing;
    const starting = (async () => {
      // After the pending I/O: a create's answer goes out before its init is asked for.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.isClosed()) throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      if (state.cgroups !== null) await ensureCgroups(state.cgroups, record);
      return startSessionInit({
        spawner: state.spawner,
        bubblewrapPath,
        systemArguments,
        mounts: options.mountsOf(record),
        user: ownerOf(record),
        seccompFile,
        cgroupTaskFiles: state.cgroups?.sandboxTaskFiles(record.id) ?? [],
        limits: sizes[record.size],
        addressSpaceLimit: state.cgroups === null,
      });
    })();
    inits.set(record.id, starting);
    const forget = () => {
      if (inits.get(record.id) === starting) inits.delete(record.id);
    };
    starting.then((init) => init.exited.then(forget), forget);
    return starting;
  }

  function startInBackground(record: SandboxRecord, state: AvailableState): void {
    ensureInit(record, state).catch((error: unknown) => {
      logger.warn({ sandboxId: record.id, error: String(error) }, "could not start a sandbox session");
    });
  }

  async function killInit(id: string): Promise<void> {
    const init = await inits.get(id)?.catch(() => null);
    await init?.kill();
  }

  async function joinSession(record: SandboxRecord, state: AvailableState): Promise<SessionInit> {
    try {
      return await ensureInit(record, state);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw new ServiceError("sandbox_operation_failed", "The sandbox session could not be started", {
        cause: error,
      });
    }
  }

  /** A cgroup of the exec's own in the pids hierarchy, and the sweep that empties it. */
  async function prepareLimits(record: SandboxRecord, state: AvailableState, prefix: string) {
    const { cgroups } = state;
    if (cgroups === null) return { cgroupTaskFiles: [], sweep: async () => {} };
    try {
      await ensureCgroups(cgroups, record);
      const execName = `${prefix}-${process.pid}-${++execCounter}`;
      const cgroupTaskFiles = await cgroups.prepareExec(record.id, execName);
      return { cgroupTaskFiles, sweep: () => cgroups.finishExec(record.id, execName) };
    } catch (error) {
      throw new ServiceError("sandbox_operation_failed", "The sandbox limits could not be applied", {
        cause: error,
      });
    }
  }

  function sessionCommand(
    record: SandboxRecord,
    state: AvailableState,
    init: SessionInit,
    cgroupTaskFiles: string[],
    command: string,
  ): SessionCommand {
    return {
      helperPath: state.helperPath,
      init: { pid: init.pid, startTime: init.startTime },
      command,
      seccompFile,
      cgroupTaskFiles,
      limits: sizes[record.size],
      addressSpaceLimit: state.cgroups === null,
      sharedMemoryBytes: sharedMemoryBytes(record),
      // A custom image's packages and the egress proxy are found through the environment.
      environment: sessionEnvironment(record),
    };
  }

  function track(id: string, execution: RunningExec): () => void {
    const set = running.get(id) ?? new Set();
    running.set(id, set);
    set.add(execution);
    return () => {
      set.delete(execution);
      if (set.size === 0 && running.get(id) === set) running.delete(id);
    };
  }

  async function execute(
    record: SandboxRecord,
    state: AvailableState,
    request: ExecRequest,
  ): Promise<ExecResult> {
    try {
      return await executeOnce(record, request, state);
    } catch (error) {
      // The init died between the check and the join (killed by the memory cgroup's OOM killer,
      // say): once more with a fresh one.
      if (!(error instanceof ServiceError) || !String(error.cause).includes("session init is gone"))
        throw error;
      await killInit(record.id);
      return executeOnce(record, request, state);
    }
  }

  async function executeOnce(record: SandboxRecord, request: ExecRequest, state: AvailableState) {
    const init = await joinSession(record, state);
    const { cgroupTaskFiles, sweep } = await prepareLimits(record, state, "exec");
    const terminate = new AbortController();
    const done = runInSession({
      ...sessionCommand(record, state, init, cgroupTaskFiles, request.command),
      size: record.size,
      spawner: state.spawner,
      timeoutSeconds: request.timeoutSeconds,
      signal: request.signal,
      onOutput: request.onOutput,
      budget: request.budget,
      terminate: terminate.signal,
      sweep,
    }).finally(() =>
      sweep().catch((error: unknown) => {
        logger.error({ sandboxId: record.id, error: String(error) }, "could not empty an exec's cgroup");
      }),
    );
    const untrack = track(record.id, { terminate, done });
    try {
      return await done;
    } finally {
      untrack();
    }
  }

  /**
   * `environment` replaces the sandbox's default one (bubblewrap-arguments.ts) when given;
   * `readOnlyBind` is bound in the process's own mount namespace only (exec.ts).
   */
  async function startProcess(
    record: SandboxRecord,
    state: AvailableState,
    command: string,
    environment?: Record<string, string>,
    readOnlyBind?: SessionCommand["readOnlyBind"],
  ): Promise<SessionProcess> {
    const { id } = record;
    const init = await joinSession(record, state);
    const { cgroupTaskFiles, sweep } = await prepareLimits(record, state, "process");
    const base = sessionCommand(record, state, init, cgroupTaskFiles, command);
    const child = spawnInSession(
      { ...base, environment: environment ?? base.environment, readOnlyBind },
      "pipe",
    );
    const exitCode = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(setupFailureExitCode));
    });
    const exited = new Promise<number>((resolve) => {
      child.once("exit", (code, signalName) => resolve(code ?? 128 + signalNumber(signalName)));
      child.once("error", () => resolve(setupFailureExitCode));
    });
    const kill = async () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      await sweep().catch(() => {});
      await exited;
    };
    const terminate = new AbortController();
    terminate.signal.addEventListener("abort", () => void kill(), { once: true });
    const done = exited.finally(() =>
      sweep().catch((error: unknown) => {
        logger.error({ sandboxId: id, error: String(error) }, "could not empty a session process's cgroup");
      }),
    );
    const untrack = track(id, { terminate, done });
    done.then(untrack, untrack);
    if (child.stdin === null || child.stdout === null || child.stderr === null) {
      throw new Error("stdin, stdout and stderr must be pipes");
    }
    child.stdin.on("error", () => {});
    const terminateCommandOnly = async () => {
      if (child.pid !== undefined) await terminateCommand(child.pid);
    };
    return {
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      exited,
      exitCode,
      kill,
      terminate: terminateCommandOnly,
    };
  }

  return {
    ensureInit,
    startInBackground,
    killInit,
    terminateRunning,
    execute,
    startProcess,
    /** Ends the running execs and session processes only. */
    async terminateAll(): Promise<void> {
      await Promise.all([...running.keys()].map(terminateRunning));
    },
    /** Ends every init (before the disks are unmounted: each holds its sandbox's mounts). */
    async killAllInits(): Promise<void> {
      await Promise.all([...inits.keys()].map(killInit));
    },
  };
}
