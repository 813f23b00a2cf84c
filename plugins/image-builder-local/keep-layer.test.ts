/**
 * What a build leaves in its layer is kept as the server's own (a review found `fs.cp` keeping a
 * setuid bit, and on Node 24 the build's uid, on the kept copy): a setuid, setgid or
 * world-writable file comes out root's with `rwxr-xr-x` at most, a FIFO stays behind, a symlink
 * is kept as it is, and the digest names what was kept.
 */
import { execFileSync } from "node:child_process";
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keepLayer } from "./keep-layer.ts";
import { layerDigest } from "./layer-digest.ts";

const builderUid = 2_100_123;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-keep-layer-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function layerWithTraps(): Promise<string> {
  const layer = await mkdtemp(join(root, "layer-"));
  await mkdir(join(layer, "npm/node_modules/trap/bin"), { recursive: true });
  await writeFile(join(layer, "npm/node_modules/trap/bin/setuid"), "#!/bin/sh\nid\n");
  await writeFile(join(layer, "npm/node_modules/trap/open.js"), "module.exports = 1;\n");
  await writeFile(join(layer, "npm/node_modules/trap/plain.js"), "module.exports = 2;\n");
  await symlink("/etc/shadow", join(layer, "npm/node_modules/trap/link"));
  execFileSync("mkfifo", [join(layer, "npm/node_modules/trap/fifo")]);
  execFileSync("chown", ["-R", "-h", `${builderUid}:${builderUid}`, layer]);
  await chmod(join(layer, "npm/node_modules/trap/bin/setuid"), 0o6777);
  await chmod(join(layer, "npm/node_modules/trap/open.js"), 0o666);
  await chmod(join(layer, "npm/node_modules/trap/bin"), 0o3777);
  return layer;
}

it("keeps a setuid or world-writable file a build left as root's, without those bits, and no FIFO", async () => {
  const layer = await layerWithTraps();
  const imagesDir = join(root, "images");
  const { digest, layerPath } = await keepLayer(layer, imagesDir);
  expect(layerPath).toBe(join(imagesDir, digest.slice("sha256:".length)));
  const trap = join(layerPath, "npm/node_modules/trap");
  const modeOf = async (path: string) => {
    const stat = await lstat(path);
    return { uid: stat.uid, gid: stat.gid, mode: (stat.mode & 0o7777).toString(8) };
  };
  expect(await modeOf(join(trap, "bin/setuid"))).toEqual({ uid: 0, gid: 0, mode: "755" });
  expect(await modeOf(join(trap, "open.js"))).toEqual({ uid: 0, gid: 0, mode: "644" });
  expect(await modeOf(join(trap, "plain.js"))).toEqual({ uid: 0, gid: 0, mode: "644" });
  expect(await modeOf(join(trap, "bin"))).toEqual({ uid: 0, gid: 0, mode: "755" });
  expect(await modeOf(layerPath)).toEqual({ uid: 0, gid: 0, mode: "755" });
  expect(await readlink(join(trap, "link"))).toBe("/etc/shadow");
  expect((await lstat(join(trap, "link"))).uid).toBe(0);
  expect((await readdir(trap)).sort()).toEqual(["bin", "link", "open.js", "plain.js"]);
  expect(await layerDigest(layerPath)).toBe(digest);
  // Nothing half-made is left beside it.
  expect(await readdir(imagesDir)).toEqual([digest.slice("sha256:".length)]);
});

it("shares one directory between equal layers", async () => {
  const imagesDir = join(root, "shared-images");
  const first = await keepLayer(await layerWithTraps(), imagesDir);
  const second = await keepLayer(await layerWithTraps(), imagesDir);
  expect(second).toEqual(first);
  expect(await readdir(imagesDir)).toEqual([first.digest.slice("sha256:".length)]);
});

it("keeps the modes of a well-behaved layer, so its digest is the one the build had", async () => {
  const layer = await mkdtemp(join(root, "plain-"));
  await mkdir(join(layer, "python/six"), { recursive: true });
  await writeFile(join(layer, "python/six/__init__.py"), "");
  await writeFile(join(layer, "python/tool"), "#!/bin/sh\n", { mode: 0o755 });
  await chown(join(layer, "python/tool"), builderUid, builderUid);
  const { digest } = await keepLayer(layer, join(root, "plain-images"));
  expect(digest).toBe(await layerDigest(layer));
});
