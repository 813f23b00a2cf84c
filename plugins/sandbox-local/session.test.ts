/**
 * One long-lived session per sandbox: execs run inside the session's namespaces but never see,
 * read or signal each other's processes or the session's init, and every process of a session,
 * init included, ends with it (destroy, close, a dead init). Real bubblewrap; processes are
 * counted on the host by the session's uid with `ps`.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCgroupsV1 } from "../../lib/sandbox-isolation/index.ts";
import {
  bubblewrapPath,
  createTestRuntime,
  eventually,
  hostProcessesMatching,
  initProcesses,
  processesOfUser,
  sessionUserId,
  settledInitProcesses,
  type TestRuntime,
  uniqueSeconds,
} from "../../test/support/local-sandbox-runtime.ts";

let test: TestRuntime;

beforeAll(async () => {
  test = await createTestRuntime();
});
afterAll(() => test.cleanUp());

/** SIGKILL; a process already gone is fine: killing one of a session's init processes can take
 * the others with it before their turn (the sandbox's PID namespace ends with its pid 1). */
function killGone(pid: number) {
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** The session's `sleep` processes on the host (the shells that start them are not counted). */
async function sleeps(uid: number, seconds: string) {
  return (await processesOfUser(uid)).filter((entry) => entry.command === `sleep ${seconds}`);
}

describe("one session, separate execs", () => {
  it("keeps the same init across execs, under the session's uid", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    expect((await test.run(id, "echo first")).stdout).toBe("first\n");
    const before = await settledInitProcesses(uid);
    expect(before.map((entry) => entry.command.split(" ")[0]).sort()).toEqual([
      "/bin/cat",
      bubblewrapPath,
      bubblewrapPath,
    ]);
    expect((await test.run(id, "echo second")).stdout).toBe("second\n");
    expect(await initProcesses(uid)).toEqual(before);
  });

  it("runs the init in the sandbox's memory, pids and cpu cgroups", async () => {
    const detection = await detectCgroupsV1("cairn");
    if (detection.manager === null) throw new Error(`this machine has writable cgroups: ${detection.reason}`);
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    await test.run(id, "true");
    const init = await settledInitProcesses(uid);
    expect(init).toHaveLength(3);
    for (const controller of ["memory", "pids", "cpu"] as const) {
      const members = (
        await readFile(join(detection.manager.parents[controller], id, "cgroup.procs"), "utf8")
      )
        .split("\n")
        .filter(Boolean)
        .map(Number);
      for (const entry of init) expect([controller, members.includes(entry.pid)]).toEqual([controller, true]);
    }
  });

  it("does not let a process of one exec read another exec's environment, or see its processes", async () => {
    const id = await test.createSandbox();
    const secret = `secret-${crypto.randomUUID()}`;
    const seconds = uniqueSeconds(3);
    const pending = test.run(id, `CAIRN_OTHER_EXEC=${secret} sleep ${seconds}; echo done`, 20);
    const uid = await sessionUserId(test.dataDir, id);
    expect(await eventually(async () => (await sleeps(uid, seconds)).length === 1)).toBe(true);
    // The secret is there to be read: the host sees it in the other exec's sleep.
    const [sleeping] = await sleeps(uid, seconds);
    expect(await readFile(`/proc/${sleeping.pid}/environ`, "utf8")).toContain(secret);
    const probe = await test.run(
      id,
      "ls /proc | grep -c '^[0-9]'; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; " +
        "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '; " +
        `for pid in $(seq 2 400); do cat /proc/$pid/environ 2>/dev/null; done | tr '\\0' '\\n'`,
    );
    expect(probe.stdout).not.toContain(secret);
    expect(probe.stdout).not.toContain(seconds);
    // Only the probe's own processes: its pid 1, the shell, ls and grep (or cat, tr, seq).
    expect(Number(probe.stdout.split("\n")[0])).toBeLessThanOrEqual(6);
    expect((await pending).stdout).toBe("done\n");
  });

  it("leaves nothing of an exec for the next one to read: background processes die when it returns", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    const secret = `secret-${crypto.randomUUID()}`;
    const seconds = uniqueSeconds(1000);
    const left = await test.run(
      id,
      `CAIRN_LEFT_BEHIND=${secret} sleep ${seconds} > /dev/null 2>&1 & (setsid sleep ${seconds} &) ; echo started`,
    );
    expect(left).toMatchObject({ exitCode: 0, stdout: "started\n", timedOut: false });
    expect(await hostProcessesMatching(seconds)).toEqual([]);
    expect((await processesOfUser(uid)).filter((entry) => entry.command.includes("sleep"))).toEqual([]);
    const probe = await test.run(id, "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'");
    expect(probe.stdout).not.toContain(secret);
  });

  it("kills an exec's background processes at its timeout", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    const seconds = uniqueSeconds(1000);
    const result = await test.run(id, `sleep ${seconds} & setsid sleep ${seconds} & sleep ${seconds}`, 1);
    expect(result).toMatchObject({ timedOut: true, exitCode: 124 });
    expect((await processesOfUser(uid)).filter((entry) => entry.command.includes("sleep"))).toEqual([]);
    expect((await test.run(id, "echo next")).stdout).toBe("next\n");
  });

  it("cannot signal or trace the session's init, nor its own pid 1", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    await test.run(id, "true");
    const before = await settledInitProcesses(uid);
    const script = `
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
result = libc.ptrace(16, 1, 0, 0)  # PTRACE_ATTACH
print("ptrace", result, os.strerror(ctypes.get_errno()))
for pid in range(1, 400):
    if pid == os.getpid():
        continue
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            command = file.read()
        if b"bwrap" in command or command == b"/bin/cat\0":
            print("sees the init", pid)
    except OSError:
        pass
`;
    const result = await test.run(
      id,
      `python3 -c '${script}'; cat /proc/1/environ > /dev/null 2>&1 || echo environ-refused; ` +
        "kill -KILL 1; kill -TERM 1; kill -STOP 1; echo still-running",
    );
    expect(result.stdout).toBe("ptrace -1 Operation not permitted\nenviron-refused\nstill-running\n");
    expect(result.exitCode).toBe(0);
    expect(await initProcesses(uid)).toEqual(before);
  });

  it("starts a fresh init for the next exec when the session's init was killed", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    await test.run(id, "echo kept > kept.txt");
    const before = (await settledInitProcesses(uid)).map((entry) => entry.pid);
    expect(before).toHaveLength(3);
    for (const pid of before) killGone(pid);
    expect(await eventually(async () => (await initProcesses(uid)).length === 0)).toBe(true);
    expect((await test.run(id, "cat kept.txt")).stdout).toBe("kept\n");
    const after = await settledInitProcesses(uid);
    expect(after).toHaveLength(3);
    expect(after.some((entry) => before.includes(entry.pid))).toBe(false);
  });

  it("runs an exec that arrives just after the init died, before the runtime noticed, in a fresh init", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    await test.run(id, "true");
    const before = (await settledInitProcesses(uid)).map((entry) => entry.pid);
    // Killed, and waited for without yielding to the event loop: the runtime cannot have seen
    // the exit yet when the exec starts.
    for (const pid of before) killGone(pid);
    const deadline = Date.now() + 5000;
    const dead = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
      } catch {
        return true;
      }
    };
    while (!before.every(dead) && Date.now() < deadline) {
      // Spin: a timer would let the runtime notice.
    }
    expect(before.every(dead)).toBe(true);
    const result = await test.run(id, "echo fresh");
    expect(result).toMatchObject({ exitCode: 0, stdout: "fresh\n" });
    const after = (await settledInitProcesses(uid)).map((entry) => entry.pid);
    expect(after).toHaveLength(3);
    expect(after.some((pid) => before.includes(pid))).toBe(false);
  });
});

describe("the serving helper", () => {
  it("fails the execs it runs when it dies, leaves none of their processes, and is replaced for the next", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    const seconds = uniqueSeconds(1000);
    const pending = test.run(id, `sleep ${seconds} & sleep ${seconds}`, 60);
    expect(await eventually(async () => (await sleeps(uid, seconds)).length === 2)).toBe(true);
    const serving = await new Promise<number[]>((resolve, reject) =>
      execFile("ps", ["--ppid", String(process.pid), "-o", "pid=,args="], (error, stdout) => {
        if (error !== null) reject(error);
        else
          resolve(
            stdout
              .split("\n")
              .filter((line) => line.includes("cairn-session serve"))
              .map((line) => Number.parseInt(line, 10)),
          );
      }),
    );
    expect(serving).toHaveLength(1);
    process.kill(serving[0], "SIGKILL");
    await expect(pending).rejects.toMatchObject({ code: "sandbox_operation_failed" });
    expect(await eventually(async () => (await sleeps(uid, seconds)).length === 0)).toBe(true);
    expect((await test.run(id, "echo again")).stdout).toBe("again\n");
  });
});

describe("session processes (what language servers will use)", () => {
  it("runs a long-lived process with piped stdio in the session, with an exec's isolation", async () => {
    const id = await test.createSandbox();
    const session = await test.runtime.startProcess(
      id,
      'echo ready; while read line; do echo "got $line $(id -u)"; done',
    );
    const lines: string[] = [];
    session.stdout.on("data", (chunk: Buffer) =>
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean)),
    );
    expect(await eventually(async () => lines.includes("ready"))).toBe(true);
    session.stdin.write("hello\n");
    expect(await eventually(async () => lines.includes("got hello 1000"))).toBe(true);
    // An exec beside it sees neither the process nor its input.
    const probe = await test.run(id, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '");
    expect(probe.stdout).not.toContain("while read line");
    session.stdin.end();
    expect(await session.exited).toBe(0);
  });

  it("spawnProcess (the port's) runs argv exactly, with the given environment only, over web streams", async () => {
    const id = await test.createSandbox();
    const spawned = await test.runtime.spawnProcess!(id, {
      command: [
        "/usr/bin/python3",
        "-c",
        "import os, sys; print(sys.argv[1:], sorted(os.environ)); print(input())",
        "a b",
        "it's",
      ],
      env: { ONLY: "this", PATH: "/usr/bin" },
    });
    const writer = spawned.stdin.getWriter();
    await writer.write(new TextEncoder().encode("echoed\n"));
    await writer.close();
    let output = "";
    const reader = spawned.stdout.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      output += new TextDecoder().decode(read.value);
    }
    // PWD comes from the shell that hands over to the program, LC_CTYPE from Python itself.
    expect(output).toBe("['a b', \"it's\"] ['LC_CTYPE', 'ONLY', 'PATH', 'PWD']\nechoed\n");
    expect(await spawned.exited).toBe(0);
    await expect(test.runtime.spawnProcess!(id, { command: [] })).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(
      test.runtime.spawnProcess!(id, { command: ["/bin/true"], env: { "BAD\nNAME": "x" } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    const sleeper = await test.runtime.spawnProcess!(id, { command: ["/bin/sleep", "1000"] });
    sleeper.kill();
    expect(await sleeper.exited).toBeNull();
  });

  it("kills a session process on request and at destroy, with everything it started", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    const seconds = uniqueSeconds(1000);
    const first = await test.runtime.startProcess(id, `sleep ${seconds} & sleep ${seconds}`);
    const second = await test.runtime.startProcess(id, `sleep ${seconds}`);
    expect(await eventually(async () => (await sleeps(uid, seconds)).length === 3)).toBe(true);
    await first.kill();
    expect(await first.exited).toBe(137);
    expect(await sleeps(uid, seconds)).toHaveLength(1);
    await test.runtime.destroy(id);
    expect(await second.exited).toBe(137);
    expect(await processesOfUser(uid)).toEqual([]);
  });
});

describe("everything ends with the session", () => {
  it("at destroy: running execs, the init and whatever was left", async () => {
    const id = await test.createSandbox();
    const uid = await sessionUserId(test.dataDir, id);
    const seconds = uniqueSeconds(1000);
    const pending = test.run(id, `sleep ${seconds} & sleep ${seconds}`, 60);
    expect(await eventually(async () => (await sleeps(uid, seconds)).length === 2)).toBe(true);
    expect(await settledInitProcesses(uid)).toHaveLength(3);
    await test.runtime.destroy(id);
    expect((await pending).exitCode).not.toBe(0);
    expect(await processesOfUser(uid)).toEqual([]);
  });

  it("at close (a server stopping), and the next start gives the sandbox a fresh init", async () => {
    const first = await createTestRuntime();
    let second: TestRuntime | undefined;
    try {
      const id = await first.createSandbox();
      const uid = await sessionUserId(first.dataDir, id);
      await first.run(id, "echo kept > kept.txt");
      const before = (await settledInitProcesses(uid)).map((entry) => entry.pid);
      expect(before).toHaveLength(3);
      await first.runtime.close();
      expect(await processesOfUser(uid)).toEqual([]);

      second = await createTestRuntime({ dataDir: first.dataDir });
      expect(await second.runtime.list()).toEqual([id]);
      // Re-adopted: its init starts again without waiting for an exec.
      expect(await eventually(async () => (await initProcesses(uid)).length === 3)).toBe(true);
      expect((await second.run(id, "cat kept.txt")).stdout).toBe("kept\n");
      const after = (await initProcesses(uid)).map((entry) => entry.pid);
      expect(after.some((pid) => before.includes(pid))).toBe(false);
      await second.runtime.destroy(id);
      expect(await processesOfUser(uid)).toEqual([]);
    } finally {
      await (second ?? first).cleanUp();
    }
  });
});
