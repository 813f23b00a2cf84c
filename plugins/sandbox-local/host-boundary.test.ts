/**
 * The escape suite, kernel side: a sandbox is never host root and cannot change the host's kernel
 * settings, mounts or devices. Real bubblewrap as the server runs it (as root). Found by an
 * attacker before these layers existed: sandbox processes were host uid 0, `/proc/sys` was
 * writable, and `|script` written to kernel/core_pattern ran as root on the host after a crash.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestRuntime,
  hostProcessesMatching,
  type TestRuntime,
  uniqueSeconds,
} from "../../test/support/local-sandbox-runtime.ts";
import { defaultUserIds } from "./create-local-sandbox-runtime.ts";
import { defaultMountDirectory } from "./session-disk.ts";

let test: TestRuntime;
let sandbox: string;

beforeAll(async () => {
  test = await createTestRuntime();
  sandbox = await test.createSandbox();
});
afterAll(async () => {
  await test.cleanUp();
});

async function sessionUserId(id: string): Promise<number> {
  const record = JSON.parse(await readFile(join(test.dataDir, "sandboxes", id, "sandbox.json"), "utf8"));
  return record.uid as number;
}

describe("a sandbox is never host root", () => {
  it("runs as its session's own unprivileged host uid: nothing in its user namespace maps to host root", async () => {
    const uid = await sessionUserId(sandbox);
    expect(uid).toBeGreaterThanOrEqual(defaultUserIds.first);
    expect(uid).toBeLessThan(defaultUserIds.first + defaultUserIds.count);
    const seconds = uniqueSeconds(1);
    const pending = test.run(
      sandbox,
      `cat /proc/self/uid_map /proc/self/gid_map; id -u; id -g; sleep ${seconds}`,
      10,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Read from the host, a process's map says which host ids its namespace holds: the sandbox
    // user (1000 inside) is the session's uid, and that is the whole map.
    const [processId] = await hostProcessesMatching(seconds);
    const hostView = [
      await readFile(`/proc/${processId}/uid_map`, "utf8"),
      await readFile(`/proc/${processId}/gid_map`, "utf8"),
    ].map((map) => map.trim().split(/\s+/));
    expect(hostView).toEqual([
      ["1000", String(uid), "1"],
      ["1000", String(uid), "1"],
    ]);
    // Read from inside, the middle column is relative to the parent namespace: bwrap's own,
    // whose single id is, again, the session's uid on the host (never uid 0).
    const [uidMap, gidMap, insideUid, insideGid] = (await pending).stdout.trim().split("\n");
    expect(uidMap.trim().split(/\s+/)).toEqual(["1000", "0", "1"]);
    expect(gidMap.trim().split(/\s+/)).toEqual(["1000", "0", "1"]);
    expect([insideUid, insideGid]).toEqual(["1000", "1000"]);
  });

  it("shows its processes to the host under the session's uid, and two sandboxes have two uids", async () => {
    const other = await test.createSandbox();
    const [uid, otherUid] = [await sessionUserId(sandbox), await sessionUserId(other)];
    expect(uid).not.toBe(otherUid);
    const seconds = uniqueSeconds(1);
    const pending = test.run(sandbox, `sleep ${seconds}`, 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const owners = new Set<string>();
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8");
        if (!commandLine.includes(seconds) || commandLine.includes("setpriv")) continue;
        const status = await readFile(`/proc/${entry}/status`, "utf8");
        owners.add(/^Uid:\s+(.*)$/m.exec(status)![1].trim());
        owners.add(/^Gid:\s+(.*)$/m.exec(status)![1].trim());
      } catch {
        // Exited while we looked.
      }
    }
    expect((await pending).exitCode).toBe(0);
    // Real, effective, saved and file-system ids alike.
    expect([...owners]).toEqual([`${uid}\t${uid}\t${uid}\t${uid}`]);
  });

  it("owns its files on the host as that uid", async () => {
    await test.run(sandbox, "echo mine > made-inside.txt");
    await test.runtime.files(sandbox).writeFile("/workspace/nested/made-outside.txt", "yours");
    const uid = await sessionUserId(sandbox);
    for (const path of ["made-inside.txt", "nested", "nested/made-outside.txt", "."]) {
      const stats = await stat(join(test.hostWorkspace(sandbox), path));
      expect([path, stats.uid, stats.gid]).toEqual([path, uid, uid]);
    }
    // Nobody else on the host can look in: the workspace and /tmp are the session uid's alone,
    // and the folder of mounts cannot be listed.
    for (const root of [test.hostWorkspace(sandbox), join(test.hostWorkspace(sandbox), "..", "tmp")]) {
      expect(((await stat(root)).mode & 0o777).toString(8)).toBe("700");
    }
    expect(((await stat(defaultMountDirectory(test.dataDir))).mode & 0o777).toString(8)).toBe("711");
    // And can change what the server wrote for it.
    const result = await test.run(
      sandbox,
      "echo changed >> nested/made-outside.txt && rm -r nested && echo ok",
    );
    expect(result.stdout).toBe("ok\n");
  });

  it("has no capabilities, no_new_privs and a seccomp filter", async () => {
    const result = await test.run(
      sandbox,
      "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status",
    );
    expect(result.stdout).toContain("CapEff:\t0000000000000000");
    expect(result.stdout).toContain("CapPrm:\t0000000000000000");
    expect(result.stdout).toContain("NoNewPrivs:\t1");
    expect(result.stdout).toContain("Seccomp:\t2");
  });
});

describe("the host's kernel settings, mounts and devices are out of reach", () => {
  it("cannot write any sysctl, not even its own value back", async () => {
    const script = String.raw`
      count=0
      for file in $(find /proc/sys -type f 2>/dev/null); do
        count=$((count + 1))
        value=$(cat "$file" 2>/dev/null) || continue
        if (printf '%s\n' "$value" > "$file") 2>/dev/null; then echo "WROTE $file"; fi
      done
      echo "checked $count"
    `;
    const result = await test.run(sandbox, script, 60);
    expect(result.stdout).not.toContain("WROTE");
    expect(Number(/checked (\d+)/.exec(result.stdout)?.[1])).toBeGreaterThan(500);
    // The same writes work for root on the host, so the check above can fail.
    const swappiness = await readFile("/proc/sys/vm/swappiness", "utf8");
    await writeFile("/proc/sys/vm/swappiness", swappiness);
  });

  it("sees /proc/sys read-only and no /sys", async () => {
    const result = await test.run(
      sandbox,
      "grep ' /proc/sys ' /proc/self/mountinfo | cut -d' ' -f6 | cut -d, -f1; test -e /sys && echo sys-present; mkdir /sys 2>/dev/null || echo no-sys; echo 1 > /sys/kernel/uevent_helper 2>/dev/null || echo sys-not-writable",
    );
    expect(result.stdout).toBe("ro\nno-sys\nsys-not-writable\n");
  });

  it("cannot make the kernel run a program as host root through core_pattern (finding 1, end to end)", async () => {
    const original = await readFile("/proc/sys/kernel/core_pattern", "utf8");
    const marker = join("/var/tmp", `cairn-core-pattern-${randomUUID()}`);
    // The attack as it was found: a script in the workspace, named by its host path (the attacker
    // read that from mountinfo), written into core_pattern, then a crash.
    const hostScript = join(test.hostWorkspace(sandbox), "pwn.sh");
    try {
      const result = await test.run(
        sandbox,
        [
          `printf '#!/bin/sh\\ncat /etc/shadow > ${marker}\\n' > pwn.sh && chmod +x pwn.sh`,
          `echo '|${hostScript}' > /proc/sys/kernel/core_pattern && echo WROTE`,
          "ulimit -c unlimited 2>/dev/null; sh -c 'kill -SEGV $$'; echo crashed",
        ].join("\n"),
      );
      expect(result.stdout).not.toContain("WROTE");
      expect(result.stdout).toContain("crashed");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await readFile("/proc/sys/kernel/core_pattern", "utf8")).toBe(original);
      expect(existsSync(marker)).toBe(false);
    } finally {
      // Put the host back whatever happened, so a failure here cannot leave a root hook behind.
      await writeFile("/proc/sys/kernel/core_pattern", original.trim());
    }
  });

  it("cannot mount, make device nodes, or use a new namespace", async () => {
    const result = await test.run(
      sandbox,
      [
        "mount -t tmpfs none /tmp 2>/dev/null && echo MOUNTED",
        "mknod /tmp/null c 1 3 2>/dev/null && echo MKNOD",
        "mkfifo /tmp/fifo && echo fifo-ok",
        "touch /dev/file 2>/dev/null && echo DEV-WRITABLE",
        "head -c 200M /dev/zero > /dev/shm/fill 2>/dev/null || echo shm-bounded",
        "unshare -U true 2>/dev/null && echo USERNS",
        "unshare -m true 2>/dev/null && echo MOUNTNS",
        "echo done",
      ].join("; "),
    );
    expect(result.stdout).toBe("fifo-ok\nshm-bounded\ndone\n");
  });

  it("is refused system calls by seccomp that its user could otherwise make", async () => {
    // keyctl and add_key need no privilege at all, so only the filter stops them; clone3 answers
    // ENOSYS (libc falls back to clone, whose namespace flags the filter can see). The numbers are
    // x86_64's, the architecture of this project's machines.
    const script = `
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *arguments):
    result = libc.syscall(number, *arguments)
    print(name, result, os.strerror(ctypes.get_errno()) if result < 0 else "ok")
call("keyctl", 250, 0, -1, 0)
call("add_key", 248, b"user", b"cairn", b"x", 1, -2)
call("clone3", 435, 0, 0)
call("io_uring_setup", 425, 8, 0)
thread = threading.Thread(target=lambda: print("threads work"))
thread.start(); thread.join()
`;
    const result = await test.run(sandbox, `python3 -c '${script}'`);
    expect(result.stdout).toBe(
      [
        "keyctl -1 Operation not permitted",
        "add_key -1 Operation not permitted",
        "clone3 -1 Function not implemented",
        "io_uring_setup -1 Operation not permitted",
        "threads work",
        "",
      ].join("\n"),
    );
  });

  it("opens Unix, IPv4, IPv6 and netlink sockets only: vsock and the other families are refused", async () => {
    // vsock ignores network namespaces and reaches the hypervisor's services; AF_ALG, AF_KEY and
    // the like widen the kernel surface. personality may not switch off address randomisation;
    // modify_ldt is refused (x86_64 numbers, as above).
    const script = `
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def family(name, number):
    try:
        socket.socket(number, socket.SOCK_STREAM if number != 16 else socket.SOCK_RAW).close()
        print(name, "ok")
    except OSError as error:
        print(name, error.strerror)
for name, number in [("unix", 1), ("inet", 2), ("inet6", 10), ("netlink", 16), ("vsock", 40), ("alg", 38), ("key", 15)]:
    family(name, number)
left, right = socket.socketpair(); print("socketpair ok")
result = libc.syscall(53, 40, 1, 0, ctypes.byref((ctypes.c_int * 2)()))
print("socketpair vsock", result, os.strerror(ctypes.get_errno()) if result < 0 else "ok")
print("personality query", libc.personality(0xffffffff) >= 0)
print("personality no-aslr", libc.personality(0x0040000), os.strerror(ctypes.get_errno()))
print("modify_ldt", libc.syscall(154, 0, None, 0), os.strerror(ctypes.get_errno()))
`;
    const result = await test.run(sandbox, `python3 -c '${script}'`);
    expect(result.stdout).toBe(
      [
        "unix ok",
        "inet ok",
        "inet6 ok",
        "netlink ok",
        "vsock Operation not permitted",
        "alg Operation not permitted",
        "key Operation not permitted",
        "socketpair ok",
        "socketpair vsock -1 Operation not permitted",
        "personality query True",
        "personality no-aslr -1 Operation not permitted",
        "modify_ldt -1 Operation not permitted",
        "",
      ].join("\n"),
    );
  });

  it("sees no host path in its mount table", async () => {
    const mountInfo = (await test.run(sandbox, "cat /proc/self/mountinfo")).stdout;
    expect(mountInfo).toContain(" /workspace ");
    for (const hostPath of [
      test.dataDir,
      defaultMountDirectory(test.dataDir),
      "/run/",
      "/var/tmp",
      process.cwd(),
    ]) {
      expect(mountInfo).not.toContain(hostPath);
    }
  });
});
