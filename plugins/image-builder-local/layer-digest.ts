/**
 * The content hash of a built layer: SHA-256 over every entry below the layer root in path order
 * (its relative path, its kind, and a file's mode bits and content hash or a link's target).
 * Timestamps and owners are left out, so the same packages give the same digest.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

async function fileHash(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function layerDigest(root: string): Promise<string> {
  const digest = createHash("sha256");
  async function visit(relative: string): Promise<void> {
    const names = (await readdir(join(root, relative))).sort();
    for (const name of names) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stat = await lstat(join(root, path));
      if (stat.isDirectory()) {
        digest.update(`d ${path}\n`);
        await visit(path);
      } else if (stat.isSymbolicLink()) {
        digest.update(`l ${path} ${await readlink(join(root, path))}\n`);
      } else if (stat.isFile()) {
        digest.update(`f ${path} ${(stat.mode & 0o777).toString(8)} ${await fileHash(join(root, path))}\n`);
      }
    }
  }
  await visit("");
  return `sha256:${digest.digest("hex")}`;
}
