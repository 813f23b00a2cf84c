import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../core/index.ts";
import { detectCgroupsV1, sandboxCpuShares } from "../../lib/sandbox-isolation/index.ts";
import {
  createTestRuntime,
  hostProcessesMatching,
  type TestRuntime,
  uniqueSeconds,
} from "../../test/support/local-sandbox-runtime.ts";

const mebibyte = 1024 * 1024;
let test: TestRuntime;

beforeAll(async () => {
  test = await createTestRuntime({
    sizes: { small: { memoryBytes: 64 * mebibyte, maxProcesses: 32, maxFileBytes: mebibyte } },
  });
});
afterAll(() => test.cleanUp());

describe("exec", () => {
  it("runs the command with a shell in /workspace and reports exit code, stdout and stderr", async () => {
    const id = await test.createSandbox();
    const result = await test.run(id, 'pwd; hostname; echo "$HOME"; echo oops >&2; exit 7');
    expect(result).toMatchObject({
      exitCode: 7,
      stdout: "/workspace\nsandbox\n/workspace\n",
      stderr: "oops\n",
      timedOut: false,
      truncated: false,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect((await test.run(id, "kill -9 $$")).exitCode).toBe(137);
  });

  it("runs the command text exactly as sh -c would, with nothing of its own left in the shell", async () => {
    const id = await test.createSandbox();
    // A trailing backslash-newline is a line continuation, not a literal backslash.
    expect((await test.run(id, "echo a\\\n")).stdout).toBe("a\n");
    const state = await test.run(
      id,
      "printf '%s|' \"$0\" \"$#\"; set | grep -c '^c='; { true <&3; } 2>/dev/null || echo fd3-closed",
    );
    expect(state.stdout).toBe("/bin/sh|0|0\nfd3-closed\n");
    const syntax = await test.run(id, "echo before\nif");
    expect([syntax.exitCode, syntax.stdout]).toEqual([2, "before\n"]);
  });

  it("keeps the workspace between execs and shares it with the file operations", async () => {
    const id = await test.createSandbox();
    await test.run(id, "echo kept > note.txt && mkdir -p /tmp/t && echo temp > /tmp/t/x");
    expect((await test.run(id, "cat /workspace/note.txt /tmp/t/x")).stdout).toBe("kept\ntemp\n");
    expect(await test.runtime.files(id).readFile("/workspace/note.txt", 100)).toBe("kept\n");
    await test.runtime.files(id).writeFile("/workspace/from-api.txt", "api\n");
    expect((await test.run(id, "cat from-api.txt")).stdout).toBe("api\n");
  });

  it("caps stdout at 1 MiB and stderr at 256 KiB and keeps draining past the caps", async () => {
    const id = await test.createSandbox();
    const result = await test.run(
      id,
      "head -c 2000000 /dev/zero | tr '\\0' a; head -c 300000 /dev/zero | tr '\\0' b >&2; " +
        "head -c 30000000 /dev/zero; echo end >&2",
    );
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(mebibyte);
    expect(result.stdout.startsWith("aaa")).toBe(true);
    expect(result.stderr.length).toBe(256 * 1024);
    expect((await test.run(id, "echo small")).truncated).toBe(false);
  });

  it("kills a command at its timeout, with everything it started", async () => {
    const id = await test.createSandbox();
    const seconds = uniqueSeconds(31);
    const result = await test.run(id, `sleep ${seconds} & trap '' TERM; sleep ${seconds}`, 1);
    expect(result).toMatchObject({ timedOut: true, exitCode: 124 });
    expect(await hostProcessesMatching(seconds)).toEqual([]);
  });

  it("leaves no background process alive once exec returns", async () => {
    const id = await test.createSandbox();
    const seconds = uniqueSeconds(27);
    const result = await test.run(id, `sleep ${seconds} > /dev/null 2>&1 & sleep ${seconds} & echo started`);
    expect(result).toMatchObject({ exitCode: 0, stdout: "started\n", timedOut: false });
    expect(await hostProcessesMatching(seconds)).toEqual([]);
  });

  it("rejects with the abort reason when the signal aborts, and kills the command", async () => {
    const id = await test.createSandbox();
    const controller = new AbortController();
    const seconds = uniqueSeconds(16);
    const pending = test.runtime.exec(id, {
      command: `sleep ${seconds}`,
      timeoutSeconds: 30,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("client went away")), 200);
    await expect(pending).rejects.toThrow("client went away");
    expect(await hostProcessesMatching(seconds)).toEqual([]);
  });

  it("refuses an unknown sandbox with not_found", async () => {
    await expect(test.run("7d4cf0a0-0000-4000-8000-000000000000", "true")).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(test.run("../../etc", "true")).rejects.toBeInstanceOf(ServiceError);
  });
});

describe("limits", () => {
  it("contains a fork bomb: exec returns, nothing survives, the sandbox still works", async () => {
    const id = await test.createSandbox();
    const marker = uniqueSeconds(2);
    const result = await test.run(id, `bomb() { bomb | bomb & }; bomb; sleep ${marker}; echo survived`, 10);
    expect(result.timedOut).toBe(false);
    expect(await hostProcessesMatching(marker)).toEqual([]);
    expect((await test.run(id, "echo alive")).stdout).toBe("alive\n");
  });

  it("stops a sandbox at its process limit", async () => {
    const id = await test.createSandbox();
    const result = await test.run(id, "for i in $(seq 60); do sleep 5 & done; echo spawned", 10);
    expect(result.stderr).toMatch(/fork|Resource temporarily unavailable/i);
  });

  it("kills a memory hog", async () => {
    const id = await test.createSandbox();
    const hog = (mebibytes: number) =>
      `python3 -c "b = bytearray(${mebibytes} * 1024 * 1024); print('allocated')"`;
    expect((await test.run(id, hog(8))).stdout).toBe("allocated\n");
    const result = await test.run(id, hog(256));
    // SIGKILL from the cgroup's OOM killer.
    expect(result.exitCode).toBe(137);
    expect(result.stdout).not.toContain("allocated");
    expect((await test.run(id, "echo alive")).stdout).toBe("alive\n");
  });

  it("limits the size of a written file", async () => {
    const id = await test.createSandbox();
    const result = await test.run(id, "head -c 3000000 /dev/zero > big; echo $?; stat -c %s big");
    expect(result.stdout.split("\n")[0]).not.toBe("0");
    expect(Number(result.stdout.split("\n")[1])).toBeLessThanOrEqual(mebibyte);
  });

  it("applies the size's cgroup limits", async () => {
    const detection = await detectCgroupsV1("cairn");
    if (detection.manager === null) throw new Error(`this machine has writable cgroups: ${detection.reason}`);
    const id = await test.createSandbox({ size: "medium" });
    const { parents } = detection.manager;
    const read = (controller: "memory" | "pids" | "cpu", file: string) =>
      readFile(join(parents[controller], id, file), "utf8").then((text) => text.trim());
    expect(await read("memory", "memory.limit_in_bytes")).toBe(String(1024 * mebibyte));
    expect(await read("pids", "pids.max")).toBe("128");
    expect(await read("cpu", "cpu.cfs_quota_us")).toBe("100000");
    // All sandboxes weigh a quarter of one server thread when the CPU is contended: set as the
    // runtime starts, from the kernel's default on a fresh machine.
    await writeFile(join(parents.cpu, "cpu.shares"), "1024");
    await detectCgroupsV1("cairn");
    expect((await readFile(join(parents.cpu, "cpu.shares"), "utf8")).trim()).toBe(String(sandboxCpuShares));
    // Every exec joins the sandbox's cgroups before bwrap starts.
    const pending = test.run(id, "sleep 0.8");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await read("memory", "cgroup.procs")).toMatch(/^\d+/);
    expect(await read("cpu", "cgroup.procs")).toMatch(/^\d+/);
    expect((await pending).exitCode).toBe(0);
    await test.runtime.destroy(id);
    expect(existsSync(join(parents.pids, id))).toBe(false);
    expect(existsSync(join(parents.memory, id))).toBe(false);
  });
});

describe("lifecycle", () => {
  it("lists sandboxes, destroys idempotently and removes the directory", async () => {
    const id = await test.createSandbox();
    expect(await test.runtime.list()).toContain(id);
    await test.runtime.destroy(id);
    await test.runtime.destroy(id);
    await test.runtime.destroy("never-existed");
    expect(await test.runtime.list()).not.toContain(id);
    expect(existsSync(join(test.dataDir, "sandboxes", id))).toBe(false);
    await expect(test.run(id, "true")).rejects.toMatchObject({ code: "not_found" });
  });

  it("destroy kills a running exec", async () => {
    const id = await test.createSandbox();
    const seconds = uniqueSeconds(23);
    const pending = test.run(id, `sleep ${seconds}`, 30);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await test.runtime.destroy(id);
    const result = await pending;
    expect(result.exitCode).not.toBe(0);
    expect(result.timedOut).toBe(false);
    expect(await hostProcessesMatching(seconds)).toEqual([]);
  });

  it("keeps a volume to its size inside the sandbox: a write past it fails there with ENOSPC", async () => {
    const volumeId = "0f6f2c3e-2222-4222-8333-444455556666";
    const sizeBytes = 16 * 1024 * 1024;
    await test.runtime.createVolume?.({ id: volumeId, accountId: "account", sizeBytes });
    const id = await test.createSandbox({ volumeMounts: [{ volumeId, mountPath: "/data", sizeBytes }] });
    // Files of 900 kB (this runtime's per-file limit is 1 MiB): 4 fit, 40 do not.
    const fill = (count: number) =>
      `for i in $(seq ${count}); do head -c 900000 /dev/zero > /data/f$i || { echo failed at $i; exit 0; }; done; echo all`;
    const small = await test.run(id, fill(4));
    expect(small, small.stderr).toMatchObject({ stdout: "all\n" });
    expect(await test.runtime.volumeUsedBytes?.(volumeId)).toBeGreaterThan(3_600_000);
    const large = await test.run(id, fill(40));
    expect(large.stdout).toMatch(/^failed at \d+\n$/);
    expect(large.stderr).toMatch(/No space left on device/);
    await test.runtime.destroy(id);
    await test.runtime.deleteVolume?.(volumeId);
    expect(await test.runtime.volumeUsedBytes?.(volumeId)).toBeNull();
  });

  it("mounts volumes and keeps their content for the next sandbox", async () => {
    const volumeId = "0f6f2c3e-1111-4222-8333-444455556666";
    const first = await test.createSandbox({ volumeMounts: [{ volumeId, mountPath: "/mnt/data" }] });
    await test.run(first, "echo persisted > /mnt/data/file");
    expect(test.runtime.files(first).roots()).toEqual(["/workspace", "/tmp", "/mnt/data"]);
    await test.runtime.destroy(first);
    const second = await test.createSandbox({ volumeMounts: [{ volumeId, mountPath: "/workspace/data" }] });
    expect((await test.run(second, "cat data/file")).stdout).toBe("persisted\n");
    expect(await test.runtime.files(second).readFile("/workspace/data/file", 100)).toBe("persisted\n");
    const listing = await test.runtime.files(second).walk("/workspace", 10);
    expect(listing.map((entry) => entry.path)).toEqual(["/workspace/data", "/workspace/data/file"]);
  });

  it("refuses volume mounts that are not plain absolute paths (core applies the placement rules)", async () => {
    const volumeId = "0f6f2c3e-1111-4222-8333-444455556666";
    for (const mountPath of ["data", "/mnt/../etc", "/", "/srv//data", "/srv/./data"]) {
      await expect(test.createSandbox({ volumeMounts: [{ volumeId, mountPath }] })).rejects.toMatchObject({
        code: "validation_error",
      });
    }
  });

  it("close terminates running execs", async () => {
    const other = await createTestRuntime();
    try {
      const id = await other.createSandbox();
      const seconds = uniqueSeconds(19);
      const pending = other.run(id, `sleep ${seconds}`, 30);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.runtime.close();
      expect((await pending).exitCode).not.toBe(0);
      expect(await hostProcessesMatching(seconds)).toEqual([]);
    } finally {
      await other.cleanUp();
    }
  });
});

describe("without cgroups (rlimits only)", () => {
  let fallback: TestRuntime;
  const warnings: string[] = [];
  beforeAll(async () => {
    const logger = {
      debug() {},
      info() {},
      warn(_fields: object, message?: string) {
        warnings.push(message ?? "");
      },
      error() {},
      child: () => logger,
    };
    fallback = await createTestRuntime({
      useCgroups: false,
      logger,
      sizes: { small: { memoryBytes: 256 * mebibyte } },
    });
  });
  afterAll(() => fallback.cleanUp());

  it("limits memory per process by address space and still cleans up after a timeout", async () => {
    const id = await fallback.createSandbox();
    const hog = await fallback.run(id, "python3 -c \"b = bytearray(512 * 1024 * 1024); print('allocated')\"");
    expect(hog.exitCode).not.toBe(0);
    expect(hog.stderr).toContain("MemoryError");
    const seconds = uniqueSeconds(29);
    const slow = await fallback.run(id, `sleep ${seconds} & sleep ${seconds}`, 1);
    expect(slow).toMatchObject({ timedOut: true, exitCode: 124 });
    expect(await hostProcessesMatching(seconds)).toEqual([]);
  });
});
