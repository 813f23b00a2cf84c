/**
 * The builder jail on this machine, tried as a build's install script would (a security review
 * found every build of every account running as one shared uid, nobody, with no seccomp filter,
 * no disk bound and no cgroups). Inside a real jail a script runs as a uid of its own (none of the
 * sandboxes', none of another build in flight), sees neither the host's files nor its processes,
 * has no network of its own, is refused the system calls a sandbox is refused, cannot write past
 * its disk, is held by its memory and process limits, and is killed with all it started at its
 * time limit. Every wait is on a condition, never on a clock.
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../core/ports/logger.ts";
import { defaultUserIds } from "../../lib/sandbox-isolation/index.ts";
import {
  type BuildHost,
  type BuildIsolation,
  type BuildRoom,
  createBuildIsolation,
  defaultBuildUserIds,
} from "./build-isolation.ts";
import { runBuilderJail } from "./builder-jail.ts";

const mebibyte = 1024 * 1024;
const diskBytes = 64 * mebibyte;
const limits = {
  memoryBytes: 256 * mebibyte,
  maxProcesses: 64,
  cpuCores: 1,
  maxOpenFiles: 1024,
  maxFileBytes: diskBytes,
  cpuSeconds: 120,
};

let dataDir: string;
let isolation: BuildIsolation;
let host: BuildHost;
let server: Server;
let port: number;
let reached = 0;

beforeAll(async () => {
  // Not under /tmp: the jail's own /tmp must not look like a host path.
  dataDir = await mkdtemp(join("/var/tmp", "cairn-builder-jail-"));
  isolation = createBuildIsolation({
    dataDir,
    userIds: defaultBuildUserIds,
    diskBytes,
    limits,
    useCgroups: true,
    cgroupParent: "cairn-image-builds-test",
    logger: silentLogger,
  });
  host = await isolation.host();
  server = createServer((socket) => {
    reached += 1;
    socket.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.close();
  await isolation.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface Run {
  room: BuildRoom;
  log: () => string;
  result: Promise<{ exitCode: number | null; timedOut: boolean }>;
}

/** Starts a script in a jail of its own; `inspect` runs before the build's room is released. */
async function start(script: string, options: { timeoutSeconds?: number; signal?: AbortSignal } = {}) {
  const room = await isolation.prepare(host);
  let log = "";
  const result = runBuilderJail({
    host,
    room,
    script,
    timeoutSeconds: options.timeoutSeconds ?? 60,
    signal: options.signal ?? new AbortController().signal,
    appendLog: (text) => {
      log += text;
    },
  });
  return { room, log: () => log, result } satisfies Run;
}

async function run(
  script: string,
  inspect: (run: Run & { output: string }) => Promise<void> | void = () => {},
) {
  const started = await start(script);
  try {
    const outcome = await started.result;
    expect(outcome.timedOut).toBe(false);
    await inspect({ ...started, output: started.log() });
    return { ...outcome, log: started.log(), uid: started.room.uid };
  } finally {
    await isolation.release(host, started.room);
  }
}

async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let round = 0; round < 600; round++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition not reached");
}

/** Host pids of the processes whose real uid is `uid`. */
async function processesOf(uid: number, options: { living?: boolean } = {}): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    if (/^Uid:\s+(\d+)/m.exec(status)?.[1] !== String(uid)) continue;
    // A zombie (exited, its parent not yet told) is still in /proc but has left its cgroups.
    if (options.living && /^State:\s+Z/m.test(status)) continue;
    found.push(Number(entry));
  }
  return found;
}

const tryConnect = (address: string, targetPort: number) =>
  `/usr/bin/node -e 'require("net").connect(${targetPort}, "${address}").on("connect", () => { console.log("connected ${address}"); process.exit(0) }).on("error", (error) => { console.log("refused ${address} " + error.code); process.exit(0) })'`;

describe("one build's jail", () => {
  it("runs as a uid of its own with no host files, no host processes and no network", async () => {
    const { exitCode, log, uid } = await run(
      [
        "echo uid=$(id -u) gid=$(id -g) groups=$(id -G)",
        `test -e ${process.cwd()} && echo host-files-visible || echo host-files-hidden`,
        "echo processes: $(cat /proc/[0-9]*/comm | sort -u | tr '\\n' ' ')",
        tryConnect("127.0.0.1", port),
        tryConnect("1.1.1.1", 443),
        "echo written > /layer/probe",
        "touch /usr/probe 2>/dev/null && echo root-writable || echo root-read-only",
      ].join("\n"),
      async ({ room }) => {
        expect(await readFile(join(room.layer, "probe"), "utf8")).toBe("written\n");
        expect((await stat(room.layer)).uid).toBe(room.uid);
        expect((await stat(room.layer)).mode & 0o777).toBe(0o700);
      },
    );
    expect(exitCode).toBe(0);
    expect(log).toContain(`uid=${uid} gid=${uid} groups=${uid}\n`);
    expect(uid).toBeGreaterThanOrEqual(defaultBuildUserIds.first);
    expect(uid).toBeLessThan(defaultBuildUserIds.first + defaultBuildUserIds.count);
    // No sandbox's uid: the two default ranges do not meet.
    expect(defaultUserIds.first + defaultUserIds.count).toBeLessThanOrEqual(defaultBuildUserIds.first);
    expect(log).toContain("host-files-hidden");
    // bwrap's init, the shell and the pipeline itself: nothing of the host (vitest runs as node).
    const processes = /processes: (.*)/.exec(log)?.[1].trim().split(" ") ?? [];
    expect(processes).toContain("sh");
    expect(processes.filter((name) => !["bwrap", "sh", "cat", "sort", "tr"].includes(name))).toEqual([]);
    expect(log).toMatch(/refused 127\.0\.0\.1 ECONNREFUSED/);
    expect(log).toMatch(/refused 1\.1\.1\.1 (ENETUNREACH|EHOSTUNREACH)/);
    expect(log).not.toContain("connected");
    expect(reached).toBe(0);
    expect(log).toContain("root-read-only");
  });

  it("has no capabilities, no_new_privs and the sessions' seccomp filter: what a sandbox is refused, it is refused", async () => {
    // keyctl, add_key and a user namespace of its own need no privilege at all, so without the
    // filter each of them works here; vsock ignores network namespaces and reaches the
    // hypervisor. x86_64 numbers, the architecture of this project's machines.
    const probe = `
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *arguments):
    result = libc.syscall(number, *arguments)
    print(name, result, os.strerror(ctypes.get_errno()) if result < 0 else "ok")
call("keyctl", 250, 0, -1, 0)
call("add_key", 248, b"user", b"cairn", b"x", 1, -2)
call("modify_ldt", 154, 0, 0, 0)
call("unshare-user", 272, 0x10000000)
call("io_uring_setup", 425, 8, 0)
try:
    socket.socket(40, socket.SOCK_STREAM).close(); print("vsock ok")
except OSError as error:
    print("vsock", error.strerror)
`;
    const { exitCode, log } = await run(
      [
        "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status",
        `python3 -c '${probe}'`,
        "unshare --user true 2>/dev/null && echo nested-userns || echo no-nested-userns",
        "echo descriptors: $(ls /proc/self/fd | tr '\\n' ' ')",
      ].join("\n"),
    );
    expect(exitCode).toBe(0);
    for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
      expect(log).toContain(`${set}:\t0000000000000000`);
    }
    expect(log).toContain("NoNewPrivs:\t1");
    expect(log).toContain("Seccomp:\t2");
    for (const line of [
      "keyctl -1 Operation not permitted",
      "add_key -1 Operation not permitted",
      "modify_ldt -1 Operation not permitted",
      "unshare-user -1 Operation not permitted",
      "io_uring_setup -1 Operation not permitted",
      "vsock Operation not permitted",
      "no-nested-userns",
    ]) {
      expect(log).toContain(`${line}\n`);
    }
    // stdin, stdout, stderr and ls's own directory: neither the filter's descriptor nor the helper's pipes.
    expect(log).toContain("descriptors: 0 1 2 3\n");
  });

  it("fails a write past its disk with ENOSPC inside, in the layer and in /tmp, and takes no more of the host", async () => {
    await run(
      [
        "dd if=/dev/zero of=/layer/big bs=1M count=200 2>&1; echo exit=$?",
        "head -c 8M /dev/zero > /tmp/more 2>&1 || echo tmp-full",
        "echo big=$(stat -c %s /layer/big)",
      ].join("\n"),
      async ({ room, output }) => {
        expect(output).toContain("No space left on device");
        expect(output).not.toContain("exit=0");
        expect(output).toContain("tmp-full");
        expect(Number(/^big=(\d+)$/m.exec(output)?.[1])).toBeLessThan(diskBytes);
        // Its blocks were reserved when the disk was made: the image did not grow by a byte.
        const image = await stat(join(dataDir, "image-builds", "disks", `${room.id}.img`));
        expect(image.blocks * 512).toBeLessThanOrEqual(diskBytes + mebibyte);
        expect(image.size).toBe(diskBytes);
      },
    );
  });

  it("is held by its own cgroups: its memory, processes and CPU share are bounded", async () => {
    const cgroups = host.cgroups;
    expect(cgroups, "cgroup v1 is writable on this machine").not.toBeNull();
    if (cgroups === null) return;
    const started = await start(
      [
        "touch /layer/ready",
        "while [ ! -e /run/cairn/go ]; do sleep 0.05; done",
        "python3 -c 'block = b\"x\" * (512 << 20)'; echo memory-exit=$?",
        // A shell that cannot fork gives up: in a subshell, which counts what it started.
        "(count=0; while [ $count -lt 200 ]; do sleep 1000 & count=$((count + 1)); echo $count > /tmp/forked; done) 2>/dev/null",
        "echo started=$(cat /tmp/forked)",
      ].join("\n"),
    );
    try {
      await eventually(() => existsSync(join(started.room.layer, "ready")));
      const cgroup = (controller: "memory" | "pids" | "cpu") =>
        join(cgroups.parents[controller], started.room.id);
      const read = (controller: "memory" | "pids" | "cpu", file: string) =>
        readFile(join(cgroup(controller), file), "utf8").then((text) => text.trim());
      expect(await read("memory", "memory.limit_in_bytes")).toBe(String(limits.memoryBytes));
      expect(await read("pids", "pids.max")).toBe(String(limits.maxProcesses));
      expect(await read("cpu", "cpu.cfs_quota_us")).toBe("100000");
      // Every process of the build is in each of them (those alive before and after the
      // reads: the gate's own `sleep` processes come and go).
      // On a busy machine the gate's shell may not have reaped its last `sleep` yet.
      const before = await processesOf(started.room.uid, { living: true });
      const members = await Promise.all(
        (["memory", "pids", "cpu"] as const).map(async (controller) =>
          (await read(controller, "cgroup.procs")).split("\n").map(Number),
        ),
      );
      const after = new Set(await processesOf(started.room.uid, { living: true }));
      const lasting = before.filter((pid) => after.has(pid));
      expect(lasting.length).toBeGreaterThan(0);
      for (const list of members) expect(list).toEqual(expect.arrayContaining(lasting));
      await writeFile(join(started.room.run, "go"), "");
      expect(await started.result, started.log()).toEqual({ exitCode: 0, timedOut: false });
      // The OOM killer of its memory cgroup, inside the jail.
      expect(started.log()).toContain("memory-exit=137");
      const forked = Number(/^started=(\d+)$/m.exec(started.log())?.[1]);
      expect(forked).toBeLessThan(limits.maxProcesses);
      // Its cgroups are gone with it.
      expect(existsSync(cgroup("pids"))).toBe(false);
    } finally {
      await isolation.release(host, started.room);
    }
  });
});

describe("builds side by side, and their end", () => {
  it("runs two builds at once as two uids: neither can signal, trace or read the other", async () => {
    const gate = "while [ ! -e /run/cairn/go ]; do sleep 0.05; done";
    const script = `echo uid=$(id -u)\necho secret > /layer/secret\n${gate}\necho done`;
    const first = await start(script);
    const second = await start(script);
    try {
      await eventually(
        () => existsSync(join(first.room.layer, "secret")) && existsSync(join(second.room.layer, "secret")),
      );
      expect(first.room.uid).not.toBe(second.room.uid);
      const [target] = await processesOf(first.room.uid);
      expect(target).toBeGreaterThan(0);
      // What the second build's uid could do on the host if it ever left its namespaces.
      const probe = `
import ctypes, os, signal, sys
pid, layer = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, action):
    try:
        action(); print(name, "ok")
    except OSError as error:
        print(name, error.strerror)
attempt("signal", lambda: os.kill(pid, signal.SIGKILL))
result = libc.ptrace(16, pid, 0, 0)
print("ptrace", os.strerror(ctypes.get_errno()) if result < 0 else "ok")
attempt("environ", lambda: open(f"/proc/{pid}/environ").read())
attempt("layer", lambda: os.listdir(layer))
attempt("secret", lambda: open(layer + "/secret").read())
`;
      const { stdout } = await promisify(execFile)(
        "python3",
        ["-c", probe, String(target), first.room.layer],
        { uid: second.room.uid, gid: second.room.uid },
      );
      expect(stdout).toBe(
        [
          "signal Operation not permitted",
          "ptrace Operation not permitted",
          "environ Permission denied",
          "layer Permission denied",
          "secret Permission denied",
          "",
        ].join("\n"),
      );
      await writeFile(join(first.room.run, "go"), "");
      await writeFile(join(second.room.run, "go"), "");
      expect(await first.result).toEqual({ exitCode: 0, timedOut: false });
      expect(await second.result).toEqual({ exitCode: 0, timedOut: false });
      expect(first.log()).toContain(`uid=${first.room.uid}\n`);
      expect(second.log()).toContain(`uid=${second.room.uid}\n`);
    } finally {
      await isolation.release(host, first.room);
      await isolation.release(host, second.room);
    }
  });

  it("kills a build past its time limit with everything it started", async () => {
    const started = await start("sleep 1000 &\nsetsid sleep 1000 &\necho started\nsleep 1000", {
      timeoutSeconds: 1,
    });
    try {
      expect(await started.result).toMatchObject({ timedOut: true });
      expect(started.log()).toContain("started");
      expect(await processesOf(started.room.uid)).toEqual([]);
    } finally {
      await isolation.release(host, started.room);
    }
  });

  it("kills an aborted build with everything it started", async () => {
    const controller = new AbortController();
    const started = await start("sleep 1000 &\necho started\nsleep 1000", { signal: controller.signal });
    try {
      await eventually(() => started.log().includes("started"));
      controller.abort();
      expect(await started.result).toMatchObject({ timedOut: false });
      expect(await processesOf(started.room.uid)).toEqual([]);
    } finally {
      await isolation.release(host, started.room);
    }
  });
});
