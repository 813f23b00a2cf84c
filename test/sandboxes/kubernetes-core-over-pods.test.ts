/**
 * Core's sandbox logic over the Kubernetes runtime's port, against a fake cluster: grep (core's
 * file walk) over the pod's files through the exec API, whose handler runs the real file script
 * on this machine. This joins core internals and a plugin, so it lives here rather than beside
 * the plugin, which imports core only through its public entry (test/import-boundaries.test.ts).
 * Processes, previews, the terminal and language servers run on the real cluster
 * (kubernetes-real-cluster-processes.test.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import { createFile, viewFile } from "../../core/sandboxes/files/file-operations.ts";
import { grepFiles } from "../../core/sandboxes/files/grep-files.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/index.ts";
import {
  createFakeKubernetesCluster,
  interceptableExecWebSocket,
  localExecHandler,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";

const sandboxId = "6d0f5e1a-7c3b-4f2e-8a9d-0e1f2a3b4c5d";
const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();

function runtime() {
  return createKubernetesSandboxRuntime({
    namespace: "cairn-sandboxes",
    kubeConfig,
    execWebSocket: interceptableExecWebSocket(kubeConfig),
  });
}

beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

describe("grep over the pod's files", () => {
  const commands: string[][] = [];
  let files: SandboxFileSystem;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    outside = await mkdtemp("/var/tmp/cairn-k8s-outside-");
    await writeFile(`${outside}/secret.txt`, "outside the sandbox");
  });
  beforeEach(async () => {
    cluster.network.use(localExecHandler(commands));
    commands.length = 0;
    root = await mkdtemp("/tmp/cairn-k8s-files-");
    files = runtime().files(sandboxId);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  afterAll(() => rm(outside, { recursive: true, force: true }));

  test("file_create and view in base64 carry a binary file exactly; a text view of it is refused", async () => {
    const bytes = new Uint8Array(70_000).map((_, index) => (index * 7919) % 256);
    const content = Buffer.from(bytes).toString("base64");
    expect(await createFile(files, { path: `${root}/bin/data.bin`, content, encoding: "base64" })).toEqual({
      path: `${root}/bin/data.bin`,
      size: bytes.length,
      created: true,
    });
    const viewed = await viewFile(files, { path: `${root}/bin/data.bin`, encoding: "base64" });
    expect([viewed.encoding, viewed.content === content]).toEqual(["base64", true]);
    await expect(viewFile(files, { path: `${root}/bin/data.bin` })).rejects.toMatchObject({
      code: "file_not_utf8",
    });
  });

  // Regression: a link to a directory below the searched tree failed the whole grep with
  // "Path is a directory"; links met while walking are now neither followed nor searched.
  test("skips links to directories inside and out, to files and to nowhere, and FIFOs", async () => {
    await mkdir(`${root}/src/deep`, { recursive: true });
    await writeFile(`${root}/src/a.txt`, "needle\n");
    await writeFile(`${root}/src/deep/b.txt`, "needle deep\n");
    await symlink(`${root}/src`, `${root}/link`);
    await symlink(outside, `${root}/outside-link`);
    await symlink("src/a.txt", `${root}/file-link.txt`);
    await symlink("missing", `${root}/dangling.txt`);
    await symlink("..", `${root}/src/up`);
    execFileSync("mkfifo", [`${root}/pipe.txt`]);
    const expected = [
      { path: `${root}/src/a.txt`, line: 1, text: "needle" },
      { path: `${root}/src/deep/b.txt`, line: 1, text: "needle deep" },
    ];
    for (const input of [{}, { glob: "*.txt" }, { glob: "**/*.txt" }]) {
      expect(await grepFiles(files, { pattern: "needle|outside", path: root, ...input })).toEqual({
        matches: expected,
        error: null,
        truncated: false,
      });
    }
    // A link named as the root is followed while it stays inside.
    expect(await grepFiles(files, { pattern: "needle", path: `${root}/link`, glob: "deep/*" })).toEqual({
      matches: [expected[1]],
      error: null,
      truncated: false,
    });
    await expect(
      grepFiles(files, { pattern: "outside", path: `${root}/outside-link` }),
    ).rejects.toMatchObject({
      code: "path_outside_sandbox",
    });
  });
});
