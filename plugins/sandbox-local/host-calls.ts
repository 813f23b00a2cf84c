/**
 * The host file-system calls a sandbox's file system reads with (file-system.ts,
 * path-resolution.ts), in two forms; its writes are made on the serving thread only, with
 * node:fs/promises. On the serving thread they are node:fs/promises: each runs on libuv's pool, four
 * threads at the server's priority that every fs call, DNS lookup and password hash of the
 * process shares in arrival order. On the file thread (file-thread.ts) they are the synchronous
 * calls, made on that thread itself at its lower priority: one account's grep over 50,000 files
 * (some 750,000 calls) no longer fills the pool the serving thread's own work queues behind, and
 * a call costs its system call, not two thread hops.
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  opendirSync,
  openSync,
  readlinkSync,
  readSync,
  type Stats,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as promises from "node:fs/promises";
import { setImmediate as nextTurn } from "node:timers/promises";

/** A listing read entry by entry, closed by whoever opened it. */
export interface HostDirectory extends AsyncIterable<{ name: string }> {
  close(): Promise<void>;
}

export interface HostCalls {
  /** A FileHandle of the synchronous form has only `fd`, `close`, `stat` and `read`. */
  open(path: string, flags: number, mode?: number): Promise<FileHandle>;
  lstat(path: string): Promise<Stats>;
  readlink(path: string): Promise<string>;
  opendir(path: string): Promise<HostDirectory>;
}

export const asynchronousHostCalls: HostCalls = {
  open: (path, flags, mode) => promises.open(path, flags, mode),
  lstat: (path) => promises.lstat(path),
  readlink: (path) => promises.readlink(path),
  opendir: (path) => promises.opendir(path),
};

/**
 * The synchronous calls, for a thread of their own. Every `turnMs` of calls the thread takes a
 * turn of its event loop, so its other callers' requests (another account's `ls` beside a walk of
 * 50,000 entries) are read between a long operation's calls, not after it.
 */
export function synchronousHostCalls(turnMs = 5): HostCalls {
  let turnStarted = performance.now();
  const turn = async () => {
    if (performance.now() - turnStarted < turnMs) return;
    await nextTurn();
    turnStarted = performance.now();
  };
  return {
    async open(path, flags, mode) {
      await turn();
      return fileHandle(openSync(path, flags, mode));
    },
    async lstat(path) {
      await turn();
      return lstatSync(path);
    },
    async readlink(path) {
      await turn();
      return readlinkSync(path);
    },
    async opendir(path) {
      await turn();
      const directory = opendirSync(path);
      let closed = false;
      return {
        async *[Symbol.asyncIterator]() {
          for (let entry = directory.readSync(); entry !== null; entry = directory.readSync()) {
            yield entry;
            await turn();
          }
        },
        async close() {
          if (closed) return;
          closed = true;
          directory.closeSync();
        },
      };
    },
  };
}

/**
 * The part of a FileHandle the sandbox file system reads with, over a descriptor of this thread.
 * A second close does nothing, as FileHandle's: closing the number again could close a descriptor
 * opened since under it.
 */
function fileHandle(fd: number): FileHandle {
  let closed = false;
  const handle = {
    fd,
    async close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
    async stat() {
      return fstatSync(fd);
    },
    async read(buffer: Uint8Array, offset: number, length: number, position: number) {
      return { bytesRead: readSync(fd, buffer, offset, length, position), buffer };
    },
  };
  // Writes and streams (file-streams.ts) never run on the file thread; the rest is what is used.
  return handle as unknown as FileHandle;
}
