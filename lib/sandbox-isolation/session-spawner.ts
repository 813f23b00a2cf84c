/**
 * The session helper in serve mode (session-helper.c): one root process per runtime that forks
 * each exec's helper, and each session's bwrap wrapper, from itself. Starting a process from the
 * server forks the whole server, a millisecond or two on its main thread each time; this small
 * process forks in microseconds. Requests and events are length-prefixed frames on its stdin and
 * stdout. If it dies, what it was running fails and ends (the sessions too: their stdin was its
 * pipe), and the next request starts a new one.
 */
import { type ChildProcess, spawn } from "node:child_process";

const eventStarted = 1;
const eventStdout = 2;
const eventStderr = 3;
const eventExited = 4;
const eventFailed = 5;
const eventExtra = 6;
const kindCommand = 1;
const kindSession = 3;
const kindHost = 4;

export interface SpawnedCommand {
  /** The pid of the command's process group leader (its helper), once started. */
  readonly pid: Promise<number>;
  /** The raw wait status once the command has exited and its output is drained. */
  readonly status: Promise<number>;
}

export interface CommandHandlers {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** A program's descriptor 3. */
  extra?(chunk: Buffer): void;
}

export interface SessionSpawner {
  /** Runs one command: its helper settings and the command, as session-helper.c reads them. */
  run(settings: string, handlers: CommandHandlers): SpawnedCommand;
  /**
   * Runs a session's bwrap (`argumentsList`, bwrap's path first) in a process group of its own,
   * after the helper has applied `settings` (cgroup `tasks` files, rlimits, the seccomp filter on
   * descriptor 9 and the session's uid; session-helper.c). Its stdin is a pipe that ends with the
   * serving helper; descriptor 3 is a pipe like stdout (`extra`).
   */
  runSession(settings: string, argumentsList: string[], handlers: CommandHandlers): SpawnedCommand;
  /**
   * Runs a host tool as root (`argumentsList`, its absolute path first), stdin /dev/null: what
   * the runtime would otherwise start by forking the server (mount, on the path of a create).
   */
  runHost(argumentsList: string[], handlers: CommandHandlers): SpawnedCommand;
  close(): Promise<void>;
}

interface Job {
  handlers: CommandHandlers;
  started(pid: number): void;
  exited(status: number): void;
  failed(error: Error): void;
}

export function createSessionSpawner(helperPath: string): SessionSpawner {
  let server: ChildProcess | null = null;
  let serverExited: Promise<void> = Promise.resolve();
  const jobs = new Map<number, Job>();
  let nextId = 1;

  function start(): ChildProcess {
    if (server !== null) return server;
    const child = spawn(helperPath, ["serve"], {
      argv0: "cairn-session",
      stdio: ["pipe", "pipe", "pipe"],
      env: {},
    });
    server = child;
    let buffer: Buffer = Buffer.alloc(0);
    let errors = "";
    child.stdin?.on("error", () => {});
    child.stderr?.on("data", (chunk: Buffer) => {
      if (errors.length < 4096) errors += chunk.toString("utf8");
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      let offset = 0;
      while (buffer.length - offset >= 9) {
        const length = buffer.readUInt32LE(offset);
        if (buffer.length - offset - 9 < length) break;
        const id = buffer.readUInt32LE(offset + 4);
        const type = buffer[offset + 8];
        const payload = buffer.subarray(offset + 9, offset + 9 + length);
        offset += 9 + length;
        const job = jobs.get(id);
        if (job === undefined) continue;
        if (type === eventStdout) job.handlers.stdout(Buffer.from(payload));
        else if (type === eventStderr) job.handlers.stderr(Buffer.from(payload));
        else if (type === eventExtra) job.handlers.extra?.(Buffer.from(payload));
        else if (type === eventStarted) job.started(payload.readUInt32LE(0));
        else if (type === eventExited) {
          jobs.delete(id);
          job.exited(payload.readInt32LE(0));
        } else if (type === eventFailed) {
          jobs.delete(id);
          job.failed(new Error(payload.toString("utf8")));
        }
      }
      buffer = buffer.subarray(offset);
    });
    serverExited = new Promise((resolve) => {
      const gone = (reason: string) => {
        if (server === child) server = null;
        const error = new Error(`the session helper ${reason}: ${errors.trim()}`);
        for (const [id, job] of jobs) {
          jobs.delete(id);
          job.failed(error);
        }
        resolve();
      };
      child.once("close", (code, signal) => gone(`exited (${code ?? signal})`));
      child.once("error", (error) => gone(`could not run (${error.message})`));
    });
    return child;
  }

  function submit(kind: number, body: Buffer, handlers: CommandHandlers): SpawnedCommand {
    const child = start();
    const id = nextId;
    nextId = nextId >= 0xfffffff0 ? 1 : nextId + 1;
    let started!: (pid: number) => void;
    let exited!: (status: number) => void;
    let failed!: (error: Error) => void;
    const pid = new Promise<number>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    const status = new Promise<number>((resolve, reject) => {
      exited = resolve;
      const previous = failed;
      failed = (error) => {
        previous(error);
        reject(error);
      };
    });
    // A command that fails before it starts rejects both; whoever waits on one only is fine.
    pid.catch(() => {});
    jobs.set(id, { handlers, started, exited, failed: (error) => failed(error) });
    const header = Buffer.alloc(9);
    header.writeUInt32LE(body.length, 0);
    header.writeUInt32LE(id, 4);
    header[8] = kind;
    child.stdin?.write(Buffer.concat([header, body]));
    return { pid, status };
  }

  return {
    run: (settings, handlers) => submit(kindCommand, Buffer.from(settings, "utf8"), handlers),

    runSession: (settings, argumentsList, handlers) =>
      submit(
        kindSession,
        Buffer.from(settings + argumentsList.map((argument) => `${argument}\0`).join(""), "utf8"),
        handlers,
      ),

    runHost: (argumentsList, handlers) =>
      submit(
        kindHost,
        Buffer.from(argumentsList.map((argument) => `${argument}\0`).join(""), "utf8"),
        handlers,
      ),

    async close() {
      // Its stdin ends: it kills whatever it still runs and exits.
      server?.stdin?.end();
      await serverExited;
    },
  };
}
