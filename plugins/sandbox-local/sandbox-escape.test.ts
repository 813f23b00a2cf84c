/**
 * The escape suite: everything a sandbox (or a file operation on its behalf) must not reach.
 * Real bubblewrap, real host files, a real TCP server.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestRuntime,
  type TestRuntime,
  uniqueSeconds,
} from "../../test/support/local-sandbox-runtime.ts";

const canaryName = "CAIRN_ESCAPE_CANARY";
const canaryValue = "canary-7e1f0c2b9d";
let test: TestRuntime;
let sandbox: string;
let neighbour: string;

beforeAll(async () => {
  process.env[canaryName] = canaryValue;
  test = await createTestRuntime();
  sandbox = await test.createSandbox();
  neighbour = await test.createSandbox();
  await test.runtime.files(neighbour).writeFile("/workspace/secret.txt", "neighbour secret");
});
afterAll(async () => {
  delete process.env[canaryName];
  await test.cleanUp();
});

const neighbourWorkspace = () => test.hostWorkspace(neighbour);

describe("exec cannot reach the host", () => {
  it("starts with a clean environment", async () => {
    const result = await test.run(sandbox, "env; cat /proc/[0-9]*/environ | tr '\\0' '\\n'");
    expect(result.stdout).toContain("HOME=/workspace");
    expect(result.stdout).not.toContain(canaryValue);
    expect(result.stdout).not.toContain(canaryName);
  });

  it("sees none of the host's private directories, the repository or the data directory", async () => {
    const paths = [
      "/root",
      "/home",
      "/var",
      "/opt",
      "/run",
      "/sys",
      "/etc/shadow",
      "/etc/ssl/private",
      process.cwd(),
      test.dataDir,
    ];
    const result = await test.run(
      sandbox,
      paths.map((path) => `test -e '${path}' && echo 'visible ${path}'`).join("; "),
    );
    expect(result.stdout).toBe("");
    // The host files exist, so the test would notice if they leaked in.
    expect(existsSync("/root") && existsSync(process.cwd())).toBe(true);
  });

  it("gets no file descriptor of the server beyond stdin, stdout and stderr", async () => {
    const result = await test.run(sandbox, "ls -l /proc/self/fd | grep -- '->'");
    const descriptors = result.stdout
      .trim()
      .split("\n")
      .map((line) => /(\d+) -> (.*)$/.exec(line)!.slice(1));
    expect(descriptors.length).toBeGreaterThanOrEqual(3);
    for (const [descriptor, target] of descriptors) {
      if (Number(descriptor) <= 2) continue;
      // ls holds its own directory open; anything the server inherited is masked by /dev/null.
      expect(target, `descriptor ${descriptor}`).toMatch(/^(\/dev\/null|\/proc\/\d+\/fd)$/);
    }
  });

  it("sees no host process and not the server's environment", async () => {
    const result = await test.run(
      sandbox,
      `ls /proc | grep -c '^[0-9]'; cat /proc/${process.pid}/environ 2>&1; cat /proc/${process.pid}/cmdline 2>&1`,
    );
    const [processCount] = result.stdout.split("\n");
    expect(Number(processCount)).toBeLessThanOrEqual(6);
    expect(result.stdout).not.toContain(canaryValue);
    expect(result.stdout).not.toContain("vitest");
  });

  it("cannot read another sandbox's workspace", async () => {
    const result = await test.run(
      sandbox,
      `cat '${neighbourWorkspace()}/secret.txt' /workspace/secret.txt 2>&1; ls -a /workspace`,
    );
    expect(result.stdout).not.toContain("neighbour secret");
    expect(result.stdout).not.toContain("secret.txt\n");
  });

  it("cannot see another sandbox's processes", async () => {
    const seconds = uniqueSeconds(1);
    const pending = test.run(neighbour, `sleep ${seconds}`, 10);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const result = await test.run(sandbox, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '");
    expect(result.stdout).not.toContain(seconds);
    expect((await pending).exitCode).toBe(0);
  });

  it("has no capabilities and a read-only system", async () => {
    const result = await test.run(
      sandbox,
      "grep CapEff /proc/self/status; touch /usr/x /etc/x /x 2>/dev/null || echo read-only; mount -t tmpfs none /mnt 2>/dev/null || echo no-mount; unshare -U true 2>/dev/null || echo no-userns",
    );
    expect(result.stdout).toBe("CapEff:\t0000000000000000\nread-only\nno-mount\nno-userns\n");
  });

  describe("network", () => {
    let server: Server;
    let connections = 0;
    let port = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("cannot connect to a server on the host, by loopback or by the host's own address", async () => {
      const hostAddresses = Object.values(networkInterfaces())
        .flat()
        .filter((address) => address !== undefined && address.family === "IPv4")
        .map((address) => address!.address);
      expect(hostAddresses).toContain("127.0.0.1");
      const script = `
import socket, sys
for host in sys.argv[1:]:
    try:
        socket.create_connection((host, ${port}), timeout=2).recv(100)
        print("reached", host)
    except OSError as error:
        print("blocked", host, error.errno)
`;
      const result = await test.run(sandbox, `python3 -c '${script}' ${hostAddresses.join(" ")}`);
      expect(result.stdout).not.toContain("reached");
      expect(result.stdout.match(/blocked/g)?.length).toBe(hostAddresses.length);
      expect(connections).toBe(0);
      // The same client outside the sandbox does get through, so the check above can fail.
      const socket = await new Promise<string>((resolve, reject) => {
        import("node:net").then(({ connect }) => {
          const client = connect(port, "127.0.0.1");
          client.on("data", (data) => resolve(String(data)));
          client.on("error", reject);
        });
      });
      expect(socket).toBe("hello from the host\n");
    });

    it("has only a loopback interface", async () => {
      const result = await test.run(
        sandbox,
        "ls /sys/class/net 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1",
      );
      expect(result.stdout.trim().split(/\s+/)).toEqual(["lo"]);
    });
  });
});

describe("file operations cannot leave the sandbox", () => {
  it("refuses `..` and paths outside the roots", async () => {
    const files = test.runtime.files(sandbox);
    for (const path of [
      "/workspace/../etc/passwd",
      "/workspace/a/../../root",
      "/etc/passwd",
      "/",
      "/root",
      "relative.txt",
    ]) {
      await expect(files.readFile(path, 1000)).rejects.toMatchObject({
        code: path === "relative.txt" ? "validation_error" : "path_outside_sandbox",
      });
    }
    await expect(files.writeFile("/workspace/../escape.txt", "x")).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    expect(existsSync(join(test.hostWorkspace(sandbox), "..", "escape.txt"))).toBe(false);
  });

  it("refuses to read through symlinks that point out, however they are spelled", async () => {
    await test.run(
      sandbox,
      `ln -sf /etc/passwd /workspace/absolute; ln -sf ../../../../../../../etc/passwd /workspace/relative; ` +
        `ln -sf '${neighbourWorkspace()}/secret.txt' /workspace/neighbour; ln -sfn /root /workspace/rootdir; ` +
        `ln -sf /proc/self/environ /workspace/environ`,
    );
    const files = test.runtime.files(sandbox);
    for (const path of [
      "/workspace/absolute",
      "/workspace/relative",
      "/workspace/neighbour",
      "/workspace/rootdir/.bashrc",
      "/workspace/environ",
    ]) {
      await expect(files.readFile(path, 100_000), path).rejects.toMatchObject({
        code: "path_outside_sandbox",
      });
    }
    await expect(files.list("/workspace/rootdir", 1_000)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(files.stat("/workspace/neighbour")).rejects.toMatchObject({ code: "path_outside_sandbox" });
  });

  it("refuses to write through a symlink that points out, and writes nothing outside", async () => {
    const target = join(test.dataDir, "outside-target.txt");
    await test.run(
      sandbox,
      `ln -sf '${target}' /workspace/out-file; ln -sfn '${test.dataDir}' /workspace/out-dir; ln -sfn /tmp/../../root /workspace/out-root`,
    );
    const files = test.runtime.files(sandbox);
    for (const path of [
      "/workspace/out-file",
      "/workspace/out-dir/created.txt",
      "/workspace/out-root/pwned",
      `/workspace/out-dir/sandboxes/${neighbour}/workspace/secret.txt`,
    ]) {
      await expect(files.writeFile(path, "pwned"), path).rejects.toMatchObject({
        code: "path_outside_sandbox",
      });
    }
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(test.dataDir, "created.txt"))).toBe(false);
    expect(await readFile(join(neighbourWorkspace(), "secret.txt"), "utf8")).toBe("neighbour secret");
  });

  it("follows symlinks that stay inside, in sandbox terms", async () => {
    await test.run(
      sandbox,
      "echo inside > /tmp/real.txt; ln -sf /tmp/real.txt /workspace/to-tmp; mkdir -p d; ln -sfn ../d /workspace/d/self",
    );
    const files = test.runtime.files(sandbox);
    expect(await files.readFile("/workspace/to-tmp", 100)).toBe("inside\n");
    expect((await files.stat("/workspace/to-tmp"))?.path).toBe("/tmp/real.txt");
    await files.writeFile("/workspace/to-tmp", "rewritten\n");
    expect(
      (await test.run(sandbox, "cat /tmp/real.txt; test -L /workspace/to-tmp && echo still-a-link")).stdout,
    ).toBe("rewritten\nstill-a-link\n");
  });

  it("refuses hard links, FIFOs and devices", async () => {
    await test.run(sandbox, "echo original > orig; ln -f orig hard; mkfifo fifo; ln -sf /dev/zero zero");
    const files = test.runtime.files(sandbox);
    await expect(files.readFile("/workspace/hard", 100)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(files.writeFile("/workspace/hard", "x")).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(files.readFile("/workspace/fifo", 100)).rejects.toMatchObject({ code: "validation_error" });
    await expect(files.readFile("/workspace/zero", 100)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    expect((await test.run(sandbox, "cat orig")).stdout).toBe("original\n");
  });

  it("walks without following or reporting symlinks and stops at the limit", async () => {
    await test.run(
      sandbox,
      "mkdir -p walk/deep/er && ln -sfn /usr walk/usr && ln -sfn / walk/root && touch walk/deep/er/file && " +
        "ln -sfn deep walk/inside && ln -sf deep/er/file walk/file-link",
    );
    const files = test.runtime.files(sandbox);
    const entries = await files.walk("/workspace/walk", 100);
    expect(entries.map((entry) => entry.path).sort()).toEqual([
      "/workspace/walk/deep",
      "/workspace/walk/deep/er",
      "/workspace/walk/deep/er/file",
    ]);
    expect(await files.walk("/workspace/walk", 2)).toHaveLength(2);
    // list shows the links as they are: not directories, with the link's own size.
    expect(
      (await files.list("/workspace/walk", 1_000)).map((entry) => [
        entry.path,
        entry.isDirectory,
        entry.size,
      ]),
    ).toEqual([
      ["/workspace/walk/deep", true, expect.any(Number)],
      ["/workspace/walk/file-link", false, "deep/er/file".length],
      ["/workspace/walk/inside", false, "deep".length],
      ["/workspace/walk/root", false, 1],
      ["/workspace/walk/usr", false, "/usr".length],
    ]);
  });
});

describe("file operations", () => {
  it("writes, reads, stats and lists", async () => {
    const id = await test.createSandbox();
    const files = test.runtime.files(id);
    expect(files.roots()).toEqual(["/workspace", "/tmp"]);
    expect(await files.writeFile("/workspace/src/main.py", "print('hi')\n")).toEqual({
      created: true,
      size: 12,
    });
    expect(await files.writeFile("/workspace/src/main.py", "print('hé')\n")).toEqual({
      created: false,
      size: 13,
    });
    expect(await files.readFile("/workspace/src/main.py", 100)).toBe("print('hé')\n");
    expect(await files.stat("/workspace/missing")).toBeNull();
    expect(await files.stat("/workspace/missing/deeper")).toBeNull();
    expect(await files.stat("/workspace/src")).toMatchObject({ path: "/workspace/src", isDirectory: true });
    await files.writeFile("/workspace/src/a.txt", "a");
    const listing = await files.list("/workspace/src", 1_000);
    expect(listing.map((entry) => [entry.path, entry.isDirectory, entry.size])).toEqual([
      ["/workspace/src/a.txt", false, 1],
      ["/workspace/src/main.py", false, 13],
    ]);
    await expect(files.readFile("/workspace/nothing", 100)).rejects.toMatchObject({ code: "not_found" });
    await expect(files.readFile("/workspace/src", 100)).rejects.toMatchObject({ code: "validation_error" });
    await expect(files.list("/workspace/nothing", 1_000)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses a file bigger than maxBytes with validation_error", async () => {
    const files = test.runtime.files(sandbox);
    await files.writeFile("/workspace/hundred.txt", "x".repeat(100));
    expect(await files.readFile("/workspace/hundred.txt", 100)).toHaveLength(100);
    await expect(files.readFile("/workspace/hundred.txt", 99)).rejects.toMatchObject({
      code: "validation_error",
      details: { size: 100, max_bytes: 99 },
    });
  });

  it("answers not_found for a sandbox that does not exist", async () => {
    const files = test.runtime.files("5b0c0a53-0000-4000-8000-000000000000");
    await expect(files.readFile("/workspace/x", 10)).rejects.toMatchObject({ code: "not_found" });
    await expect(test.runtime.files("../..").readFile("/workspace/x", 10)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
