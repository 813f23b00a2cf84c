/**
 * What the local runtime keeps about each sandbox on the data directory:
 * `<dataDir>/sandboxes/<id>/sandbox.json` (the spec and the session's host uid, read back after a
 * restart) beside the sandbox's disk image, and the uid range sessions are given uids from.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "../../core/index.ts";
import type { SandboxSpec } from "../../core/ports/sandbox-runtime.ts";
import type { UserIdRange } from "../../lib/sandbox-isolation/index.ts";

/**
 * The jail's settings, written once at create and never changed: what the runtime needs to run
 * the sandbox again after a restart. Whether it exists, whose it is, its disk size and its status
 * are the database's (the session row); start-up reconciliation ends what only one side holds.
 */
export type SandboxRecord = Pick<SandboxSpec, "id" | "size" | "egressHosts" | "volumeMounts" | "image"> & {
  /** The session's host uid, also its gid. */
  uid: number;
};

// Sandbox and volume ids are UUIDs; anything else could walk out of the data directory.
export const safeId = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function ownerOf(record: SandboxRecord) {
  return { uid: record.uid, gid: record.uid };
}

export function createSandboxRecords(sandboxesDirectory: string, userIds: UserIdRange) {
  const records = new Map<string, SandboxRecord>();
  /** Uids handed to sandboxes being created or held, by sandbox id. */
  const claimedUserIds = new Map<string, number>();
  const directory = (id: string) => join(sandboxesDirectory, id);
  const recordFile = (id: string) => join(directory(id), "sandbox.json");

  function loadSync(id: string): SandboxRecord | null {
    const cached = records.get(id);
    if (cached !== undefined) return cached;
    if (!safeId.test(id) || !existsSync(recordFile(id))) return null;
    try {
      const record = JSON.parse(readFileSync(recordFile(id), "utf8")) as SandboxRecord;
      records.set(id, record);
      return record;
    } catch {
      // Removed by a concurrent destroy since the check.
      return null;
    }
  }

  return {
    directory,
    imageFile: (id: string) => join(directory(id), "disk.img"),
    loadSync,

    async load(id: string): Promise<SandboxRecord> {
      const cached = records.get(id);
      if (cached !== undefined) return cached;
      if (safeId.test(id)) {
        try {
          const record = JSON.parse(await readFile(recordFile(id), "utf8")) as SandboxRecord;
          records.set(id, record);
          return record;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
      throw new ServiceError("not_found", `Sandbox not found: ${id}`);
    },

    /** Written whole and renamed, so a concurrent reader never sees half a record. */
    async save(record: SandboxRecord): Promise<void> {
      await writeFile(`${recordFile(record.id)}.new`, JSON.stringify(record));
      await rename(`${recordFile(record.id)}.new`, recordFile(record.id));
      records.set(record.id, record);
    },

    forget(id: string): void {
      records.delete(id);
      claimedUserIds.delete(id);
    },

    /** The sandbox directories found on the data directory. */
    async ids(): Promise<string[]> {
      const entries = await readdir(sandboxesDirectory, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isDirectory() && safeId.test(entry.name))
        .map((entry) => entry.name);
    },

    /**
     * A uid of the range that no sandbox holds, picked at random so that two runtimes on one host
     * (tests, a second data directory) rarely meet.
     */
    async allocateUserId(sandboxId: string): Promise<number> {
      const onDisk = await readdir(sandboxesDirectory);
      // From here to the claim nothing awaits, so two concurrent creates cannot pick one uid.
      const taken = new Set<number>(claimedUserIds.values());
      for (const id of onDisk) {
        const record = loadSync(id);
        if (record !== null) taken.add(record.uid);
      }
      if (taken.size >= userIds.count) {
        throw new ServiceError("sandbox_operation_failed", "No sandbox user id is free", {
          cause: new Error(`all ${userIds.count} uids from ${userIds.first} are in use`),
        });
      }
      for (;;) {
        const uid = userIds.first + Math.floor(Math.random() * userIds.count);
        if (taken.has(uid)) continue;
        claimedUserIds.set(sandboxId, uid);
        return uid;
      }
    },
  };
}
