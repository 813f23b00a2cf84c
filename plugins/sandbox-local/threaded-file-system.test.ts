/**
 * The file thread answers as the file system on the serving thread would: a walk longer than one
 * part comes back whole and in order, bytes arrive intact, a refusal is the same ServiceError
 * (code, details), and a closed thread refuses further calls. Real files.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../core/index.ts";
import { createSandboxFileSystem } from "./file-system.ts";
import type { SandboxRoot } from "./path-resolution.ts";
import { createFileThread, type FileThread } from "./threaded-file-system.ts";

describe("the file thread", () => {
  let directory: string;
  let roots: SandboxRoot[];
  let thread: FileThread;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "cairn-file-thread-"));
    roots = [{ sandboxPath: "/workspace", hostPath: directory }];
    await mkdir(join(directory, "many"));
    for (let folder = 0; folder < 5; folder++) {
      await mkdir(join(directory, "many", `d${folder}`));
      await Promise.all(
        Array.from({ length: 1_000 }, (_, index) =>
          writeFile(join(directory, "many", `d${folder}`, `f${index}.txt`), `file ${folder}/${index}\n`),
        ),
      );
    }
    await writeFile(join(directory, "bytes.bin"), Buffer.from([0, 255, 1, 254]));
    await symlink("/etc/passwd", join(directory, "outside"));
    thread = createFileThread();
  });
  afterAll(async () => {
    await thread.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("walks more than one part's worth of entries, whole and in order", async () => {
    const threaded = await thread.files(roots, null).walk("/workspace/many", 10_000);
    const here = await createSandboxFileSystem(roots, null).walk("/workspace/many", 10_000);
    expect(threaded).toHaveLength(5_005);
    expect(threaded.map((entry) => entry.path)).toEqual(here.map((entry) => entry.path));
    expect(threaded[1]).toMatchObject({ isDirectory: false, size: expect.any(Number) });
    expect(threaded[1]?.modifiedAt).toBeInstanceOf(Date);
  });

  it("reads bytes and text as they are", async () => {
    const files = thread.files(roots, null);
    expect([...(await files.readBytes("/workspace/bytes.bin", 100))]).toEqual([0, 255, 1, 254]);
    expect(await files.readFile("/workspace/many/d3/f7.txt", 100)).toBe("file 3/7\n");
    expect(await files.stat("/workspace/nothing-here")).toBeNull();
  });

  it("refuses with the same ServiceError as the serving thread", async () => {
    const files = thread.files(roots, null);
    const outside = await files.readFile("/workspace/outside", 100).catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(ServiceError);
    expect(outside).toMatchObject({ code: "path_outside_sandbox", details: { path: "/workspace/outside" } });
    const tooLarge = await files.readBytes("/workspace/bytes.bin", 2).catch((error: unknown) => error);
    expect(tooLarge).toBeInstanceOf(ServiceError);
    expect(tooLarge).toMatchObject({ code: "validation_error", details: { size: 4, max_bytes: 2 } });
  });

  it("refuses calls once closed", async () => {
    const ended = createFileThread();
    const files = ended.files(roots, null);
    expect(await files.readFile("/workspace/many/d0/f0.txt", 100)).toBe("file 0/0\n");
    await ended.close();
    await expect(files.readFile("/workspace/many/d0/f0.txt", 100)).rejects.toThrow(/closed/);
  });
});
