/**
 * Builds the session helper (session-helper.c) with the host's C compiler, once per version of its
 * source: the binary is kept as `/run/cairn-sandboxes/session-helper-<digest of the source>`,
 * root's and not writable by anyone else, shared by every runtime on the host and rebuilt after a
 * reboot empties /run. Statically linked where the C library allows it (a dynamic one works the same).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";

const source = join(import.meta.dirname, "session-helper.c");
const helperDirectory = "/run/cairn-sandboxes";

export async function buildSessionHelper(directory: string = helperDirectory): Promise<string> {
  const text = await readFile(source);
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const binary = join(directory, `session-helper-${digest}`);
  if (existsSync(binary)) return binary;
  await mkdir(directory, { recursive: true, mode: 0o711 });
  // Built beside its final name and renamed, so two runtimes starting at once never run half a file.
  const building = `${binary}.${process.pid}.${Date.now()}`;
  const flags = ["-O2", "-Wall", "-o", building, source];
  try {
    await compile(["-static", ...flags]).catch(() => compile(flags));
    await chmod(building, 0o700);
    await rename(building, binary);
  } finally {
    await rm(building, { force: true });
  }
  return binary;
}

function compile(argumentsList: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      "cc",
      argumentsList,
      { env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C" } },
      (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`cannot build the session helper with cc: ${stderr.trim() || error.message}`));
      },
    );
  });
}
