/**
 * One process serves a data directory at a time: the local sandbox runtime mounts the sandbox
 * disks it finds there and unmounts every one when it closes (plugins/sandbox-local), so a second
 * process would take them from under the first. The server and `cairn mcp serve --data-dir` hold
 * this lock while they serve; a lock whose process is gone (a crash, a kill) is taken over.
 */
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { dataDirectoryFailure } from "./start-up-failure.ts";

/** Another live process serves the directory: the start stops, saying so in one line. */
export class DataDirectoryBusy extends Error {
  readonly line: string;
  constructor(directory: string, holder: number | null) {
    super(
      `another process${holder === null ? "" : ` (pid ${holder})`} is serving it, and one process serves a data directory at a time`,
    );
    this.name = "DataDirectoryBusy";
    this.line = `cairn: cannot serve ${directory}: ${this.message}`;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the directory's lock (creating the directory, 0700); resolves to its release. */
export async function lockDataDirectory(directory: string): Promise<() => Promise<void>> {
  const path = join(directory, "serve.lock");
  // Written whole, then linked into place: the lock never exists without its pid.
  const written = `${path}.${process.pid}`;
  // A directory that is a file or that this user cannot write stops the start in one line.
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(written, `${process.pid}\n`, { mode: 0o600 });
  } catch (error) {
    throw dataDirectoryFailure(directory, error);
  }
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(written, path);
        return () => rm(path, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
      if (holder > 0 && holder !== process.pid && isRunning(holder))
        throw new DataDirectoryBusy(directory, holder);
      await rm(path, { force: true });
    }
    throw new DataDirectoryBusy(directory, null);
  } finally {
    await rm(written, { force: true });
  }
}
