/**
 * Keeps a finished layer at its content address, `<imagesDir>/<digest hex>/`. The layer was
 * written by the build (attacker-chosen code) as the build's uid, so it is not moved but copied
 * entry by entry, as root's: directories, regular files and symlinks (kept as they are, never
 * followed) only, and modes cut to `rwxr-xr-x` at most. A node_modules file made setuid, or
 * writable by every host account, or a FIFO, stays on the build's disk, which is then removed;
 * `fs.cp` would have kept the mode and, on Node 24, the owner. The digest is taken over the copy,
 * so it names what is kept. Equal layers share one directory.
 */
import { randomUUID } from "node:crypto";
import {
  chmod,
  chown,
  copyFile,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
} from "node:fs/promises";
import { join } from "node:path";
import { layerDigest } from "./layer-digest.ts";

const keptMode = (mode: number) => mode & 0o755;

async function copyTree(source: string, target: string, mode: number): Promise<void> {
  await mkdir(target, { mode: 0o700 });
  for (const name of await readdir(source)) {
    const from = join(source, name);
    const to = join(target, name);
    const stat = await lstat(from);
    if (stat.isDirectory()) {
      await copyTree(from, to, keptMode(stat.mode));
    } else if (stat.isSymbolicLink()) {
      await symlink(await readlink(from), to);
    } else if (stat.isFile()) {
      await copyFile(from, to);
      // Owner first: copyFile keeps the builder's, and a chown clears set-id bits anyway.
      await chown(to, 0, 0);
      await chmod(to, keptMode(stat.mode));
    }
  }
  await chmod(target, mode);
}

/** Copies `layer` into `imagesDir` and returns its digest and kept path. */
export async function keepLayer(
  layer: string,
  imagesDir: string,
): Promise<{ digest: string; layerPath: string }> {
  await mkdir(imagesDir, { recursive: true, mode: 0o755 });
  // Closed to other host accounts until it is complete.
  const staging = join(imagesDir, `.partial-${randomUUID()}`);
  try {
    await copyTree(layer, staging, 0o700);
    const digest = await layerDigest(staging);
    const layerPath = join(imagesDir, digest.slice("sha256:".length));
    if (await lstat(layerPath).catch(() => null)) return { digest, layerPath };
    await chmod(staging, 0o755);
    await rename(staging, layerPath).catch(async (error) => {
      // A concurrent equal build kept it first: the same content.
      if (!(await lstat(layerPath).catch(() => null))) throw error;
    });
    return { digest, layerPath };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
