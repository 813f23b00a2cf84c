/**
 * The file thread's synchronous host calls: the sandbox file system over them answers as over
 * node:fs/promises, a long walk lets the thread's event loop turn while it runs (another
 * account's call is read meanwhile), and a second close leaves alone a descriptor opened since
 * under the same number. Real files.
 */
import { closeSync, constants, openSync, readSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxFileSystem } from "./file-system.ts";
import { synchronousHostCalls } from "./host-calls.ts";
import type { SandboxRoot } from "./path-resolution.ts";

describe("synchronous host calls", () => {
  let directory: string;
  let roots: SandboxRoot[];
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "cairn-host-calls-"));
    roots = [{ sandboxPath: "/workspace", hostPath: directory }];
    for (let folder = 0; folder < 4; folder++) {
      await mkdir(join(directory, `d${folder}`));
      await Promise.all(
        Array.from({ length: 500 }, (_, index) =>
          writeFile(join(directory, `d${folder}`, `f${index}.txt`), `file ${folder}/${index}\n`),
        ),
      );
    }
    await symlink("d1/f1.txt", join(directory, "inside"));
    await symlink("/etc/passwd", join(directory, "outside"));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it("give the same answers as the asynchronous ones", async () => {
    const synchronous = createSandboxFileSystem(roots, null, synchronousHostCalls());
    const asynchronous = createSandboxFileSystem(roots, null);
    expect(await synchronous.walk("/workspace", 10_000)).toEqual(
      await asynchronous.walk("/workspace", 10_000),
    );
    expect(await synchronous.list("/workspace/d2", 1_000)).toEqual(
      await asynchronous.list("/workspace/d2", 1_000),
    );
    expect(await synchronous.list("/workspace/d2", 10)).toHaveLength(11);
    expect(await synchronous.readFile("/workspace/inside", 100)).toBe("file 1/1\n");
    expect(await synchronous.stat("/workspace/d3/f9.txt")).toEqual(
      await asynchronous.stat("/workspace/d3/f9.txt"),
    );
    await expect(synchronous.readFile("/workspace/outside", 100)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(synchronous.readFile("/workspace/d0/none.txt", 100)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("let the thread's event loop turn during a long walk", async () => {
    const files = createSandboxFileSystem(roots, null, synchronousHostCalls(0));
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(count);
    };
    setImmediate(count);
    const entries = await files.walk("/workspace", 10_000);
    counting = false;
    expect(entries).toHaveLength(2_004);
    // Without turns the walk settles in one run of promise callbacks, before any immediate.
    expect(turns).toBeGreaterThan(100);
  });

  it("close a descriptor once, never one opened since under its number", async () => {
    const calls = synchronousHostCalls();
    const first = await calls.open(join(directory, "d0/f1.txt"), constants.O_RDONLY);
    const number = first.fd;
    await first.close();
    const reopened = openSync(join(directory, "d0/f2.txt"), constants.O_RDONLY);
    try {
      expect(reopened).toBe(number);
      await first.close();
      const buffer = Buffer.alloc(64);
      const length = readSync(reopened, buffer, 0, buffer.length, 0);
      expect(buffer.subarray(0, length).toString()).toBe("file 0/2\n");
    } finally {
      closeSync(reopened);
    }
  });
});
