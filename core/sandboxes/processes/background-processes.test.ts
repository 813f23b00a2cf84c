import { describe, expect, it } from "vitest";
import { silentLogger } from "../../ports/logger.ts";
import type { ProcessRequest, SandboxProcess, SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { createBackgroundProcesses } from "./background-processes.ts";

/** A process double: what the test writes comes out of its streams; it ends when told. */
function createFakeProcess(options: { ignoresTerm?: boolean; readsNoInput?: boolean } = {}) {
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const stderr = new TransformStream<Uint8Array, Uint8Array>();
  const stdin: Uint8Array[] = [];
  let stdinClosed = false;
  let finish: (code: number | null) => void = () => {};
  const exited = new Promise<number | null>((resolve) => {
    finish = resolve;
  });
  const out = stdout.writable.getWriter();
  const err = stderr.writable.getWriter();
  const end = (code: number | null) => {
    void out.close().catch(() => {});
    void err.close().catch(() => {});
    finish(code);
  };
  const signals: string[] = [];
  const process: SandboxProcess = {
    stdin: new WritableStream({
      write: (chunk) => (options.readsNoInput ? new Promise(() => {}) : void stdin.push(chunk)),
      close: () => {
        stdinClosed = true;
      },
    }),
    stdout: stdout.readable,
    stderr: stderr.readable,
    exited,
    kill: () => {
      signals.push("KILL");
      end(137);
    },
    terminate: () => {
      signals.push("TERM");
      if (!options.ignoresTerm) end(143);
    },
  };
  return {
    process,
    signals,
    stdin,
    stdinClosed: () => stdinClosed,
    print: (stream: "stdout" | "stderr", text: string) =>
      (stream === "stdout" ? out : err).write(new TextEncoder().encode(text)),
    end,
  };
}

function fakeRuntime(next: () => ReturnType<typeof createFakeProcess>) {
  const requests: ProcessRequest[] = [];
  const runtime = {
    name: "local",
    spawnProcess: async (_id: string, request: ProcessRequest) => {
      requests.push(request);
      return next().process;
    },
  } as unknown as SandboxRuntime;
  return { runtime, requests };
}

const sessionId = "session-1";
const start = (
  processes: ReturnType<typeof createBackgroundProcesses>,
  runtime: SandboxRuntime,
  deadlineMs = 60_000,
) =>
  processes.start(runtime, sessionId, {
    command: "serve",
    description: null,
    now: new Date(),
    deadlineAt: new Date(Date.now() + deadlineMs),
  });

describe("background processes", () => {
  it("runs the command with /bin/sh as a tenant's command, and reads both streams into one log", async () => {
    const fake = createFakeProcess();
    const { runtime, requests } = fakeRuntime(() => fake);
    const processes = createBackgroundProcesses({
      logger: silentLogger,
      now: () => new Date(),
      limitPerSession: 2,
      outputBytes: 1024,
    });
    const state = await start(processes, runtime);
    expect(requests).toEqual([{ command: ["/bin/sh", "-c", "serve"], kind: "command" }]);
    const waiting = processes.output(sessionId, state.processId, { since: 0, maxBytes: 100, waitMs: 60_000 });
    await fake.print("stdout", "ready\n");
    const page = await waiting;
    expect(new TextDecoder().decode(page.chunks[0].bytes)).toBe("ready\n");
    await fake.print("stderr", "warn\n");
    await processes.input(sessionId, state.processId, new TextEncoder().encode("go\n"), true);
    expect([new TextDecoder().decode(fake.stdin[0]), fake.stdinClosed()]).toEqual(["go\n", true]);
    fake.end(0);
    const ended = await processes.wait(sessionId, state.processId, 60_000);
    expect(ended).toMatchObject({ status: "exited", exitCode: 0, outputBytes: 11 });
    await expect(processes.input(sessionId, state.processId, new Uint8Array(1), false)).rejects.toMatchObject(
      { code: "process_not_running" },
    );
  });

  it("stops with SIGTERM, and SIGKILL after the grace period for a process that ignores it", async () => {
    const polite = createFakeProcess();
    const stubborn = createFakeProcess({ ignoresTerm: true });
    const queue = [polite, stubborn];
    const { runtime } = fakeRuntime(() => queue.shift() as ReturnType<typeof createFakeProcess>);
    const processes = createBackgroundProcesses({
      logger: silentLogger,
      now: () => new Date(),
      limitPerSession: 2,
      outputBytes: 1024,
      stopGraceMs: 10,
    });
    const first = await start(processes, runtime);
    const second = await start(processes, runtime);
    expect(await processes.stop(sessionId, first.processId)).toMatchObject({
      status: "killed",
      exitCode: 143,
    });
    expect(polite.signals).toEqual(["TERM"]);
    expect(await processes.stop(sessionId, second.processId)).toMatchObject({
      status: "killed",
      exitCode: 137,
    });
    expect(stubborn.signals).toEqual(["TERM", "KILL"]);
  });

  it("refuses a start past the limit while every slot runs, and reuses an ended one's", async () => {
    const fakes: Array<ReturnType<typeof createFakeProcess>> = [];
    const { runtime } = fakeRuntime(() => {
      const fake = createFakeProcess();
      fakes.push(fake);
      return fake;
    });
    const processes = createBackgroundProcesses({
      logger: silentLogger,
      now: () => new Date(),
      limitPerSession: 2,
      outputBytes: 1024,
    });
    const first = await start(processes, runtime);
    await start(processes, runtime);
    await expect(start(processes, runtime)).rejects.toMatchObject({
      code: "background_process_limit_reached",
      details: { limit: 2 },
    });
    fakes[0].end(0);
    await processes.wait(sessionId, first.processId, 60_000);
    const third = await start(processes, runtime);
    expect(processes.list(sessionId).map((state) => state.processId)).not.toContain(first.processId);
    expect(processes.list(sessionId).map((state) => state.processId)).toContain(third.processId);
    expect(() => processes.get("another-session", third.processId)).toThrow(
      expect.objectContaining({ code: "not_found" }),
    );
  });

  it("ends a process at its deadline (timed_out), and every process with its session", async () => {
    const { runtime } = fakeRuntime(() => createFakeProcess());
    const processes = createBackgroundProcesses({
      logger: silentLogger,
      now: () => new Date(),
      limitPerSession: 4,
      outputBytes: 1024,
      stopGraceMs: 10,
    });
    const timed = await start(processes, runtime, 5);
    expect(await processes.wait(sessionId, timed.processId, 60_000)).toMatchObject({ status: "timed_out" });
    const running = await start(processes, runtime);
    const ending = processes.wait(sessionId, running.processId, 60_000);
    processes.endSession(sessionId);
    // While its processes end, the session takes no new one.
    await expect(start(processes, runtime)).rejects.toMatchObject({ code: "not_found" });
    expect(await ending).toMatchObject({ status: "killed" });
  });

  it("refuses a second input while the process has not read the first", async () => {
    const deaf = createFakeProcess({ readsNoInput: true });
    const { runtime } = fakeRuntime(() => deaf);
    const processes = createBackgroundProcesses({
      logger: silentLogger,
      now: () => new Date(),
      limitPerSession: 1,
      outputBytes: 1024,
      inputWaitMs: 1,
    });
    const state = await start(processes, runtime);
    await processes.input(sessionId, state.processId, new TextEncoder().encode("first"), false);
    await expect(
      processes.input(sessionId, state.processId, new TextEncoder().encode("second"), false),
    ).rejects.toMatchObject({ code: "process_stdin_busy" });
    deaf.end(0);
  });
});
