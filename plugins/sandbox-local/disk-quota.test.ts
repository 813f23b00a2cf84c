/**
 * Each sandbox writes to a disk of its own, sized by `storage_gb` (finding 4: a sandbox with
 * `storage_gb: 0.01` once wrote 2.3 GB into the disk the database and every tenant share).
 */
import { existsSync } from "node:fs";
import { readdir, stat, statfs } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultStorageGb } from "../../core/index.ts";
import { writableBytes } from "../../lib/sandbox-isolation/index.ts";
import { createTestRuntime, type TestRuntime } from "../../test/support/local-sandbox-runtime.ts";
import { defaultMountDirectory } from "./session-disk.ts";

let test: TestRuntime;

beforeAll(async () => {
  test = await createTestRuntime();
});
afterAll(async () => {
  await test.cleanUp();
});

const mebibyte = 1024 * 1024;

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 200; round++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not reached in 5 s");
}

describe("the disk quota", () => {
  it("fails a write past storage_gb with ENOSPC inside, and the sandbox stays usable once the file is gone", async () => {
    const id = await test.createSandbox({ storageGb: 0.01 });
    const image = join(test.dataDir, "sandboxes", id, "disk.img");
    const imageBefore = await stat(image);
    const fill = await test.run(
      id,
      "dd if=/dev/zero of=big bs=1M count=200 2>&1; echo exit=$?; ls -l big",
      60,
    );
    expect(fill.stdout).toContain("No space left on device");
    expect(fill.stdout).not.toContain("exit=0");
    const written = Number(fill.stdout.trim().split("\n").at(-1)?.split(/\s+/)[4]);
    expect(written).toBeLessThanOrEqual(0.01 * 1024 * mebibyte);
    // /tmp is on the same disk.
    const tmp = await test.run(id, "head -c 2M /dev/zero > /tmp/more || echo tmp-full; rm -f /tmp/more");
    expect(tmp.stdout + tmp.stderr).toMatch(/tmp-full|No space left/);
    // The file operations meet the same wall, as a clear 4xx rather than a server fault.
    await expect(
      test.runtime.files(id).writeFile("/workspace/also.txt", "x".repeat(2 * mebibyte)),
    ).rejects.toMatchObject({ code: "validation_error" });
    // What the sandbox wrote took no host block beyond its disk's, reserved when it was made.
    // (The host's free space is no measure: other test files make and remove disks meanwhile.)
    const imageAfter = await stat(image);
    expect(imageAfter.size).toBe(imageBefore.size);
    expect(imageAfter.blocks).toBe(imageBefore.blocks);
    const recovered = await test.run(id, "rm big && echo fine > small.txt && cat small.txt");
    expect(recovered.stdout).toBe("fine\n");
    expect(await test.runtime.files(id).writeFile("/workspace/also.txt", "x".repeat(mebibyte))).toEqual({
      created: true,
      size: mebibyte,
    });
  });

  it("gives a sandbox without storage_gb its size's default disk, all of it reserved on the host", async () => {
    const id = await test.createSandbox({ size: "small", storageGb: null });
    // Preallocated, not sparse: the blocks are the sandbox's before it writes anything, so no
    // tenant can run the host's disk out from under another (mkfs would punch them out again
    // without `nodiscard`).
    const image = await stat(join(test.dataDir, "sandboxes", id, "disk.img"));
    expect(image.size).toBe(defaultStorageGb.small * 1024 ** 3);
    expect(image.blocks * 512).toBeGreaterThanOrEqual(image.size);
    const result = await test.run(id, "df -B1 --output=size /workspace | tail -1");
    const bytes = Number(result.stdout.trim());
    const expected = defaultStorageGb.small * 1024 ** 3;
    expect(bytes).toBeGreaterThan(expected * 0.9);
    expect(bytes).toBeLessThanOrEqual(expected);
  });

  it("keeps one formatted spare disk for the next small sandbox, and removes it at close", async () => {
    const spares = join(test.dataDir, "spare-disks");
    const first = await test.createSandbox({ size: "small", storageGb: null });
    await waitFor(async () => (await readdir(spares)).length === 1);
    const [spare] = await readdir(spares);
    const second = await test.createSandbox({ size: "small", storageGb: null });
    // The spare became the second sandbox's disk (fully allocated, empty, its uid's), and the
    // next spare is on its way.
    expect(existsSync(join(spares, spare))).toBe(false);
    const image = await stat(join(test.dataDir, "sandboxes", second, "disk.img"));
    expect(image.blocks * 512).toBeGreaterThanOrEqual(defaultStorageGb.small * 1024 ** 3);
    const listing = await test.run(second, "ls -A /workspace /tmp; echo ok > mine && stat -c %u mine");
    expect(listing.stdout).toBe("/tmp:\n\n/workspace:\n1000\n");
    expect((await test.run(first, "cat /workspace/mine 2>&1 || echo separate")).stdout).toContain("separate");
    await waitFor(async () => (await readdir(spares)).length === 1);
    // Another size makes its own disk and leaves the spare alone.
    const medium = await test.createSandbox({ size: "medium", storageGb: null });
    expect((await stat(join(test.dataDir, "sandboxes", medium, "disk.img"))).size).toBe(
      defaultStorageGb.medium * 1024 ** 3,
    );
    // Closing leaves no spare behind (the next start makes one when it is needed).
    const other = await createTestRuntime();
    await other.runtime.destroy(await other.createSandbox());
    await waitFor(async () => (await readdir(join(other.dataDir, "spare-disks"))).length === 1);
    await other.runtime.close();
    expect(existsSync(join(other.dataDir, "spare-disks"))).toBe(false);
    // Nor a mount or a mount point of its own on the host.
    expect(existsSync(defaultMountDirectory(other.dataDir))).toBe(false);
    await other.cleanUp();
  });

  it("refuses a sandbox the host has no room for, and leaves nothing behind", async () => {
    const tooLarge = (writableBytes(await statfs(test.dataDir)) * 2) / 1024 ** 3;
    const id = crypto.randomUUID();
    // Checked before anything is written: the host keeps its reserve (host-room.test.ts).
    await expect(test.createSandbox({ id, storageGb: tooLarge })).rejects.toMatchObject({
      code: "global_capacity_reached",
      message: expect.stringMatching(/^The host has no room for/),
    });
    expect(await test.runtime.list()).not.toContain(id);
  });
});
