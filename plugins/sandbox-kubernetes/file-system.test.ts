/**
 * The file primitives through the exec API, with an exec handler that runs the real script on
 * this machine. The roots are the runtime's (/workspace, /tmp, volume mounts), so the files live
 * in a fresh folder under /tmp, and "outside" is a folder under /var/tmp. Core's grep over a pod's
 * files on the real cluster: test/sandboxes/kubernetes-real-cluster-processes.test.ts.
 */

import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import {
  createFakeKubernetesCluster,
  interceptableExecWebSocket,
  localExecHandler,
  testKubeConfig,
} from "../../test/doubles/fake-kubernetes-cluster.ts";
import { fileScript } from "./file-system.ts";
import { createKubernetesSandboxRuntime } from "./runtime.ts";

const sandboxId = "6d0f5e1a-7c3b-4f2e-8a9d-0e1f2a3b4c5d";
const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();
const commands: string[][] = [];
let files: SandboxFileSystem;
let root: string;
let outside: string;

beforeAll(async () => {
  await cluster.network.enable();
  outside = await mkdtemp("/var/tmp/cairn-k8s-outside-");
  await writeFile(`${outside}/secret.txt`, "outside the sandbox");
});
beforeEach(async () => {
  cluster.network.use(localExecHandler(commands));
  commands.length = 0;
  root = await mkdtemp("/tmp/cairn-k8s-files-");
  const runtime = createKubernetesSandboxRuntime({
    namespace: "cairn-sandboxes",
    kubeConfig,
    execWebSocket: interceptableExecWebSocket(kubeConfig),
  });
  files = runtime.files(sandboxId);
});
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
  await rm(root, { recursive: true, force: true });
});
afterAll(async () => {
  await cluster.network.disable();
  await rm(outside, { recursive: true, force: true });
});

describe("writeFile and readFile", () => {
  test("runs the file script under timeout with the path, a number and the roots", async () => {
    await files.stat(`${root}/a.txt`);
    expect(commands).toEqual([
      [
        "timeout",
        "-k",
        "2",
        "60",
        "/bin/sh",
        "-c",
        fileScript,
        "cairn-files",
        "stat",
        `${root}/a.txt`,
        "0",
        "/workspace",
        "/tmp",
      ],
    ]);
  });

  test("creates parents, reports created and size in bytes, then overwrites", async () => {
    const content = "héllo\twörld\n".repeat(3);
    expect(await files.writeFile(`${root}/deep/er/notes.txt`, content)).toEqual({
      created: true,
      size: Buffer.byteLength(content),
    });
    expect(await readFile(`${root}/deep/er/notes.txt`, "utf8")).toBe(content);
    expect(await files.writeFile(`${root}/deep/er/notes.txt`, "short")).toEqual({ created: false, size: 5 });
    expect(await files.readFile(`${root}/deep/er/notes.txt`, 1000)).toBe("short");
  });

  test("carries content larger than one stdin frame and empty content", async () => {
    const content = `${"0123456789abcdef".repeat(20_000)}end`;
    expect(await files.writeFile(`${root}/big.txt`, content)).toEqual({
      created: true,
      size: content.length,
    });
    expect(await files.readFile(`${root}/big.txt`, 10 * 1024 * 1024)).toBe(content);
    expect(await files.writeFile(`${root}/empty.txt`, "")).toEqual({ created: true, size: 0 });
    expect(await files.readFile(`${root}/empty.txt`, 100)).toBe("");
  });

  test("a file larger than maxBytes is a validation_error; one of exactly maxBytes is read", async () => {
    await writeFile(`${root}/long.txt`, "abcdefghij");
    await expect(files.readFile(`${root}/long.txt`, 9)).rejects.toMatchObject({ code: "validation_error" });
    expect(await files.readFile(`${root}/long.txt`, 10)).toBe("abcdefghij");
  });

  test("a missing file is not_found; a directory is a validation_error", async () => {
    await expect(files.readFile(`${root}/missing.txt`, 100)).rejects.toMatchObject({ code: "not_found" });
    await expect(files.readFile(root, 100)).rejects.toMatchObject({ code: "validation_error" });
    await expect(files.writeFile(root, "x")).rejects.toMatchObject({ code: "validation_error" });
  });

  test("a parent that is a file is a validation_error", async () => {
    await writeFile(`${root}/plain`, "x");
    await expect(files.writeFile(`${root}/plain/child.txt`, "x")).rejects.toMatchObject({
      code: "validation_error",
    });
  });
});

describe("bytes", () => {
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const streamOf = (bytes: Uint8Array, chunk = 1024 * 1024) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += chunk)
          controller.enqueue(bytes.subarray(offset, offset + chunk));
        controller.close();
      },
    });
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const chunks: Uint8Array[] = [];
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return Buffer.concat(chunks);
  };
  const leftovers = async (directory: string) =>
    (await readdir(directory)).filter((name) => name.startsWith(".cairn-upload"));

  test("writeBytes and readBytes carry every byte value exactly", async () => {
    const bytes = new Uint8Array(512).map((_, index) => index % 256);
    expect(await files.writeBytes(`${root}/all.bin`, bytes)).toEqual({ created: true, size: 512 });
    expect(Buffer.compare(await readFile(`${root}/all.bin`), Buffer.from(bytes))).toBe(0);
    expect(
      Buffer.compare(Buffer.from(await files.readBytes(`${root}/all.bin`, 512)), Buffer.from(bytes)),
    ).toBe(0);
  });

  test("a 20 MiB stream goes in and out in chunks of one exec each, byte for byte", async () => {
    const bytes = randomBytes(20 * 1024 * 1024);
    commands.length = 0;
    expect(await files.writeStream(`${root}/up/big.bin`, streamOf(bytes), 100 * 1024 * 1024)).toEqual({
      created: true,
      size: bytes.length,
    });
    const operations = commands.map((argv) => argv[8]);
    expect(operations).toEqual(["begin", "append", "append", "append", "commit"]);
    expect(sha256(await readFile(`${root}/up/big.bin`))).toBe(sha256(bytes));
    expect(await leftovers(`${root}/up`)).toEqual([]);

    commands.length = 0;
    const opened = await files.readStream(`${root}/up/big.bin`, Number.MAX_SAFE_INTEGER);
    expect(opened.size).toBe(bytes.length);
    expect(sha256(await collect(opened.stream))).toBe(sha256(bytes));
    expect(commands.map((argv) => argv[8])).toEqual(["stat", "range", "range", "range"]);
  }, 60_000);

  test("a stream past maxBytes is payload_too_large and leaves the old file and no part behind", async () => {
    await writeFile(`${root}/kept.bin`, "old");
    await expect(
      files.writeStream(`${root}/kept.bin`, streamOf(randomBytes(3000), 1000), 2500),
    ).rejects.toMatchObject({
      code: "payload_too_large",
    });
    expect(await readFile(`${root}/kept.bin`, "utf8")).toBe("old");
    expect(await leftovers(root)).toEqual([]);
    const replaced = await files.writeStream(`${root}/kept.bin`, streamOf(new Uint8Array([0, 255])), 2500);
    expect(replaced).toEqual({ created: false, size: 2 });
  });

  test("streams keep the path rules", async () => {
    await symlink(`${outside}/secret.txt`, `${root}/escape`);
    await expect(files.readStream(`${root}/escape`, 100)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(files.writeStream(`${root}/escape`, streamOf(new Uint8Array(1)), 100)).rejects.toMatchObject(
      {
        code: "path_outside_sandbox",
      },
    );
    expect(await readFile(`${outside}/secret.txt`, "utf8")).toBe("outside the sandbox");
    await expect(files.readStream(`${root}/missing.bin`, 100)).rejects.toMatchObject({ code: "not_found" });
    await expect(files.readStream(root, 100)).rejects.toMatchObject({ code: "validation_error" });
    const empty = await files.readStream(`${root}/empty.bin`, 100).catch(() => null);
    expect(empty).toBeNull();
    await writeFile(`${root}/empty.bin`, "");
    const opened = await files.readStream(`${root}/empty.bin`, 100);
    expect([opened.size, (await collect(opened.stream)).length]).toEqual([0, 0]);
  });
});

describe("path safety inside the pod", () => {
  test("a path outside every root is path_outside_sandbox", async () => {
    await expect(files.readFile(`${outside}/secret.txt`, 100)).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
    await expect(files.stat("/etc/hostname")).rejects.toMatchObject({ code: "path_outside_sandbox" });
  });

  test("a symlink leading outside is refused for read, write, stat and list", async () => {
    await symlink(`${outside}/secret.txt`, `${root}/link.txt`);
    await symlink(outside, `${root}/linked-dir`);
    const attempts = [
      () => files.readFile(`${root}/link.txt`, 100),
      () => files.writeFile(`${root}/link.txt`, "overwritten"),
      () => files.writeFile(`${root}/linked-dir/new.txt`, "planted"),
      () => files.stat(`${root}/linked-dir`),
      () => files.list(`${root}/linked-dir`, 1_000),
      () => files.walk(`${root}/linked-dir`, 10),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toMatchObject({ code: "path_outside_sandbox" });
    }
    expect(await readFile(`${outside}/secret.txt`, "utf8")).toBe("outside the sandbox");
    await expect(readFile(`${outside}/new.txt`)).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("a symlink that stays inside is followed to its canonical path", async () => {
    await writeFile(`${root}/target.txt`, "inside");
    await symlink(`${root}/target.txt`, `${root}/alias.txt`);
    expect(await files.readFile(`${root}/alias.txt`, 100)).toBe("inside");
    expect(await files.stat(`${root}/alias.txt`)).toMatchObject({ path: `${root}/target.txt`, size: 6 });
  });

  test("a volume mount path is a root of its own", async () => {
    const mounted = createKubernetesSandboxRuntime({
      namespace: "cairn-sandboxes",
      kubeConfig,
      execWebSocket: interceptableExecWebSocket(kubeConfig),
    });
    // list() learns the mount paths from the pod annotation, as after a restart.
    cluster.network.use(listWithMount(`${outside}`));
    await mounted.list();
    expect(await mounted.files(sandboxId).readFile(`${outside}/secret.txt`, 100)).toBe("outside the sandbox");
  });
});

describe("stat, list and walk", () => {
  test("stat gives type, size and modification time, and null for a missing path", async () => {
    await writeFile(`${root}/file.txt`, "12345");
    const stat = await files.stat(`${root}/file.txt`);
    expect(stat).toEqual({
      path: `${root}/file.txt`,
      isDirectory: false,
      size: 5,
      modifiedAt: expect.any(Date),
    });
    expect(Math.abs((stat?.modifiedAt.getTime() ?? 0) - Date.now())).toBeLessThan(60 * 60 * 1000);
    expect(await files.stat(root)).toMatchObject({ path: root, isDirectory: true });
    expect(await files.stat(`${root}/nothing`)).toBeNull();
  });

  test("list gives the direct children, names with tabs and newlines intact", async () => {
    await mkdir(`${root}/sub/inner`, { recursive: true });
    await writeFile(`${root}/sub/inner/deep.txt`, "d");
    await writeFile(`${root}/odd\tname\nhere.txt`, "odd");
    const entries = await files.list(root, 1_000);
    expect(entries.map(({ path, isDirectory, size }) => ({ path, isDirectory, size })).sort(byPath)).toEqual([
      { path: `${root}/odd\tname\nhere.txt`, isDirectory: false, size: 3 },
      { path: `${root}/sub`, isDirectory: true, size: expect.any(Number) },
    ]);
    await expect(files.list(`${root}/odd\tname\nhere.txt`, 1_000)).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(files.list(`${root}/gone`, 1_000)).rejects.toMatchObject({ code: "not_found" });
  });

  test("list stops one entry past its limit", async () => {
    await mkdir(`${root}/many`);
    for (const name of ["a", "b", "c", "d", "e"]) await writeFile(`${root}/many/${name}`, name);
    expect(await files.list(`${root}/many`, 2)).toHaveLength(3);
    expect(await files.list(`${root}/many`, 5)).toHaveLength(5);
  });

  test("walk goes down without following or reporting symlinks and stops at the limit", async () => {
    await mkdir(`${root}/a/b`, { recursive: true });
    await writeFile(`${root}/a/b/c.txt`, "c");
    await writeFile(`${root}/a/d.txt`, "d");
    await symlink(outside, `${root}/a/escape`);
    await symlink("b", `${root}/a/inside`);
    await symlink("d.txt", `${root}/a/alias.txt`);
    const all = await files.walk(root, 100);
    expect(all.map((entry) => entry.path).sort()).toEqual(
      [`${root}/a`, `${root}/a/b`, `${root}/a/b/c.txt`, `${root}/a/d.txt`].sort(),
    );
    expect(await files.walk(root, 2)).toHaveLength(2);
    // list still shows the links as they are: not directories, with the link's own size.
    expect(
      (await files.list(`${root}/a`, 1_000))
        .map((entry) => [entry.path, entry.isDirectory, entry.size])
        .sort(),
    ).toEqual([
      [`${root}/a/alias.txt`, false, "d.txt".length],
      [`${root}/a/b`, true, expect.any(Number)],
      [`${root}/a/d.txt`, false, 1],
      [`${root}/a/escape`, false, outside.length],
      [`${root}/a/inside`, false, "b".length],
    ]);
    await expect(files.walk(`${root}/a/d.txt`, 10)).rejects.toMatchObject({ code: "validation_error" });
  });
});

function byPath(left: { path: string }, right: { path: string }): number {
  return left.path < right.path ? -1 : 1;
}

function listWithMount(mountPath: string) {
  return httpListPods([
    {
      metadata: {
        name: `cairn-sandbox-${sandboxId}`,
        labels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": sandboxId },
        annotations: { "cairn.dev/mount-paths": JSON.stringify([mountPath]) },
      },
    },
  ]);
}

function httpListPods(items: unknown[]) {
  return http.get("https://kubernetes.test/api/v1/namespaces/cairn-sandboxes/pods", () =>
    HttpResponse.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items }),
  );
}
