/**
 * The background processes of this server's sandboxes (docs/sandboxes.md#processes), by session.
 * A process outlives the request that started it, so it is held here in process, like a language
 * server: it ends by itself, at `stop` (SIGTERM, then SIGKILL after a grace period), at its
 * `max_runtime_seconds`, or with its sandbox (destroy, the reaper, reconciliation, shutdown).
 * Its output is kept in server memory, bounded: `outputBytes` per process (oldest dropped first)
 * and `limitPerSession` processes per sandbox (an exited one is forgotten, oldest first, to make
 * room for a new one), so a sandbox holds at most their product however much it prints.
 */
import { ServiceError } from "../../errors.ts";
import type { Logger } from "../../ports/logger.ts";
import type { SandboxProcess, SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { createOutputLog, type OutputLog, type OutputPage, type OutputStream } from "./output-log.ts";

export type ProcessStatus = "running" | "exited" | "killed" | "timed_out";

export interface ProcessState {
  processId: string;
  command: string;
  description: string | null;
  status: ProcessStatus;
  /** The exit code once ended (128 + N when signal N ended it); null while running or when unknown. */
  exitCode: number | null;
  startedAt: Date;
  endedAt: Date | null;
  /** When `max_runtime_seconds` (or the sandbox's expiry) ends it. */
  deadlineAt: Date;
  /** Bytes of stdout and stderr produced so far: the offset output reaches at its end. */
  outputBytes: number;
  /** Offset of the first byte still kept (0 until output was dropped). */
  outputStartOffset: number;
}

export interface StartProcessRequest {
  command: string;
  description: string | null;
  /** When the process is ended if still running. */
  deadlineAt: Date;
  now: Date;
}

export interface BackgroundProcesses {
  /** Starts `command` (run by /bin/sh in /workspace) in the sandbox; 429 past the limit. */
  start(runtime: SandboxRuntime, sessionId: string, request: StartProcessRequest): Promise<ProcessState>;
  list(sessionId: string): ProcessState[];
  /** One process's state, or 404 `not_found` (also for another session's id). */
  get(sessionId: string, processId: string): ProcessState;
  /**
   * Output from `since` (at most `maxBytes`); with `waitMs`, waits that long for a byte past
   * `since` or the process's end when there is none yet.
   */
  output(
    sessionId: string,
    processId: string,
    options: { since: number; maxBytes: number; waitMs: number; signal?: AbortSignal },
  ): Promise<OutputPage & { state: ProcessState }>;
  /** Writes to the process's stdin; `eof` closes it after. 409 when stdin is closed or the process ended. */
  input(sessionId: string, processId: string, data: Uint8Array, eof: boolean): Promise<void>;
  /** SIGTERM, then SIGKILL after the grace period; settles once it has ended. */
  stop(sessionId: string, processId: string): Promise<ProcessState>;
  /** Waits up to `waitMs` for the process to end; its state either way. */
  wait(sessionId: string, processId: string, waitMs: number, signal?: AbortSignal): Promise<ProcessState>;
  /** Kills every process of a session at once (its sandbox is going away). */
  endSession(sessionId: string): void;
  close(): void;
  /** The runtime with `destroy` and `close` ending the processes first. */
  endingWithSessions(runtime: SandboxRuntime): SandboxRuntime;
}

export interface BackgroundProcessesOptions {
  logger: Logger;
  now(): Date;
  limitPerSession: number;
  outputBytes: number;
  /** Between SIGTERM and SIGKILL at stop. */
  stopGraceMs?: number;
  /** How long an input request waits for the process to take its bytes (then answers; they stay queued). */
  inputWaitMs?: number;
}

interface Held {
  state: ProcessState;
  log: OutputLog;
  process: SandboxProcess | null;
  stdin: WritableStreamDefaultWriter<Uint8Array> | null;
  /** Why it is being ended, once something ends it. */
  ending: "killed" | "timed_out" | null;
  ended: Promise<void>;
  /** Woken on every change (output, end). */
  listeners: Set<() => void>;
  timer: ReturnType<typeof setTimeout> | null;
  /** An input the process has not read yet. */
  inputPending: boolean;
}

const notFound = () => new ServiceError("not_found", "Process not found in this sandbox");

function newProcessId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `proc_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** Resolves after `ms` or at the first wake, whichever is first. */
function changeOrTimeout(held: Held, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      held.listeners.delete(done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    held.listeners.add(done);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export function createBackgroundProcesses(options: BackgroundProcessesOptions): BackgroundProcesses {
  const { logger, limitPerSession, outputBytes } = options;
  const graceMs = options.stopGraceMs ?? 5_000;
  const inputWaitMs = options.inputWaitMs ?? 5_000;
  const sessions = new Map<string, Map<string, Held>>();
  // A session's processes whose sandbox is ending: kept until they have ended (so a reader sees
  // their end), but taking no new process.
  const ending = new WeakSet<Map<string, Held>>();

  const heldOf = (sessionId: string, processId: string): Held => {
    const held = sessions.get(sessionId)?.get(processId);
    if (!held) throw notFound();
    return held;
  };
  const wake = (held: Held) => {
    for (const listener of [...held.listeners]) listener();
  };
  const snapshot = (held: Held): ProcessState => ({
    ...held.state,
    outputBytes: held.log.totalBytes,
    outputStartOffset: held.log.startOffset,
  });

  /** Ends a process: SIGTERM first unless `immediately`, SIGKILL after the grace period. */
  const end = (held: Held, reason: "killed" | "timed_out", immediately: boolean) => {
    if (held.state.status !== "running") return held.ended;
    held.ending ??= reason;
    const process = held.process;
    if (process === null) return held.ended;
    if (immediately || !process.terminate) {
      process.kill();
      return held.ended;
    }
    process.terminate();
    const timer = setTimeout(() => process.kill(), graceMs);
    void held.ended.then(() => clearTimeout(timer));
    return held.ended;
  };

  /** Reads one stream into the log until it ends. */
  async function pump(held: Held, stream: OutputStream, source: ReadableStream<Uint8Array> | undefined) {
    if (!source) return;
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        held.log.append(stream, value);
        wake(held);
      }
    } catch {
      // The stream broke with the process: what was read is kept.
    } finally {
      held.log.end(stream);
      wake(held);
    }
  }

  /** Makes room for one more: forgets the oldest ended process, or refuses. */
  function makeRoom(sessionId: string, processes: Map<string, Held>) {
    if (processes.size < limitPerSession) return;
    const oldestEnded = [...processes.values()].find((held) => held.state.status !== "running");
    if (oldestEnded) {
      processes.delete(oldestEnded.state.processId);
      return;
    }
    throw new ServiceError(
      "background_process_limit_reached",
      `A sandbox runs at most ${limitPerSession} background processes at once`,
      {
        details: { limit: limitPerSession, session_id: sessionId },
        remediation: `Stop one (POST /v1/sandboxes/{id}/processes/{process_id}/stop, process_stop) or wait for one to exit; the operator sets the limit with SVC_MAX_PROCESSES_PER_SANDBOX (${limitPerSession}).`,
      },
    );
  }

  const processes: BackgroundProcesses = {
    async start(runtime, sessionId, request) {
      if (!runtime.spawnProcess) {
        throw new ServiceError(
          "sandbox_operation_failed",
          `Background processes are not available on the ${runtime.name} sandbox runtime`,
        );
      }
      let held = sessions.get(sessionId);
      if (held && ending.has(held)) throw notFound();
      if (!held) {
        held = new Map();
        sessions.set(sessionId, held);
      }
      const owned = held;
      makeRoom(sessionId, owned);
      let settleEnded: () => void = () => {};
      const entry: Held = {
        state: {
          processId: newProcessId(),
          command: request.command,
          description: request.description,
          status: "running",
          exitCode: null,
          startedAt: request.now,
          endedAt: null,
          deadlineAt: request.deadlineAt,
          outputBytes: 0,
          outputStartOffset: 0,
        },
        log: createOutputLog(outputBytes),
        process: null,
        stdin: null,
        ending: null,
        ended: new Promise((resolve) => {
          settleEnded = resolve;
        }),
        listeners: new Set(),
        timer: null,
        inputPending: false,
      };
      // The slot is held while the process starts, so parallel starts cannot pass the limit.
      owned.set(entry.state.processId, entry);
      let process: SandboxProcess;
      try {
        process = await runtime.spawnProcess(sessionId, {
          command: ["/bin/sh", "-c", request.command],
          kind: "command",
        });
      } catch (error) {
        settleEnded();
        owned.delete(entry.state.processId);
        if (owned.size === 0 && sessions.get(sessionId) === owned && !ending.has(owned))
          sessions.delete(sessionId);
        throw error;
      }
      entry.process = process;
      entry.stdin = process.stdin.getWriter();
      entry.stdin.closed.catch(() => {});
      const pumped = Promise.all([
        pump(entry, "stdout", process.stdout),
        pump(entry, "stderr", process.stderr),
      ]);
      void process.exited.then(async (code) => {
        if (entry.timer) clearTimeout(entry.timer);
        // Output still in the pipes comes first; a stream another process holds open is not waited for.
        await Promise.race([pumped, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        entry.state = {
          ...entry.state,
          status: entry.ending ?? "exited",
          exitCode: code,
          endedAt: options.now(),
        };
        entry.stdin?.abort().catch(() => {});
        settleEnded();
        wake(entry);
      });
      const delay = Math.max(0, request.deadlineAt.getTime() - request.now.getTime());
      // setTimeout fires at once past 2^31 - 1 ms; a sandbox lives far less than that.
      entry.timer = setTimeout(() => void end(entry, "timed_out", false), Math.min(delay, 2_147_483_647));
      if (ending.has(owned)) {
        // The sandbox ended while the process started.
        process.kill();
        throw notFound();
      }
      logger.info({ sessionId, processId: entry.state.processId }, "background process started");
      return snapshot(entry);
    },
    list(sessionId) {
      return [...(sessions.get(sessionId)?.values() ?? [])].filter((held) => held.process).map(snapshot);
    },
    get(sessionId, processId) {
      return snapshot(heldOf(sessionId, processId));
    },
    async output(sessionId, processId, { since, maxBytes, waitMs, signal }) {
      const held = heldOf(sessionId, processId);
      if (since > held.log.totalBytes) {
        throw new ServiceError("validation_error", "Invalid request", {
          details: [
            {
              type: "too_big",
              loc: ["since_offset"],
              msg: `since_offset is past the output (${held.log.totalBytes} bytes so far)`,
            },
          ],
        });
      }
      if (waitMs > 0 && since === held.log.totalBytes && held.state.status === "running") {
        await changeOrTimeout(held, waitMs, signal);
      }
      return { ...held.log.read(since, maxBytes), state: snapshot(held) };
    },
    async input(sessionId, processId, data, eof) {
      const held = heldOf(sessionId, processId);
      const writer = held.stdin;
      if (held.state.status !== "running" || writer === null) {
        throw new ServiceError("process_not_running", "The process has ended; its stdin is closed");
      }
      // One input at a time: bytes a process does not read would otherwise pile up in the server.
      if (held.inputPending) {
        throw new ServiceError("process_stdin_busy", "The process has not read its previous input yet");
      }
      held.inputPending = true;
      if (eof) held.stdin = null;
      const written = (async () => {
        if (data.length > 0) await writer.write(data);
        if (eof) await writer.close();
      })().finally(() => {
        held.inputPending = false;
      });
      // A process that reads answers at once; one that does not keeps the bytes queued (the next
      // input is refused until they are read) and the request does not wait for it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          written,
          new Promise((resolve) => {
            timer = setTimeout(resolve, inputWaitMs);
          }),
        ]);
      } catch (error) {
        throw new ServiceError("process_not_running", "The process's stdin is closed", { cause: error });
      } finally {
        clearTimeout(timer);
        written.catch(() => {});
      }
    },
    async stop(sessionId, processId) {
      const held = heldOf(sessionId, processId);
      await end(held, "killed", false);
      return snapshot(held);
    },
    async wait(sessionId, processId, waitMs, signal) {
      const held = heldOf(sessionId, processId);
      if (held.state.status === "running") {
        await Promise.race([
          held.ended,
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, waitMs);
            void held.ended.then(() => clearTimeout(timer));
            signal?.addEventListener("abort", () => resolve(), { once: true });
          }),
        ]);
      }
      return snapshot(held);
    },
    endSession(sessionId) {
      const held = sessions.get(sessionId);
      if (!held) return;
      ending.add(held);
      const entries = [...held.values()];
      for (const entry of entries) {
        if (entry.timer) clearTimeout(entry.timer);
        void end(entry, "killed", true);
      }
      void Promise.allSettled(entries.map((entry) => entry.ended)).then(() => {
        if (sessions.get(sessionId) === held) sessions.delete(sessionId);
      });
    },
    close() {
      for (const sessionId of [...sessions.keys()]) processes.endSession(sessionId);
    },
    endingWithSessions(runtime) {
      return new Proxy(runtime, {
        get(target, property, receiver) {
          if (property === "destroy") {
            return (id: string) => {
              processes.endSession(id);
              return target.destroy(id);
            };
          }
          if (property === "close") {
            return () => {
              processes.close();
              return target.close();
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  };
  return processes;
}
