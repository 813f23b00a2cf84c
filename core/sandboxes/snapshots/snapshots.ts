/**
 * Snapshots of a sandbox's disk (docs/sandboxes.md#snapshots): taken by the runtime consistently,
 * immutable, counted against the account's cap, and restored into a new sandbox that starts from
 * the snapshot's files. Written over the storage and runtime ports; the operations in
 * core/tools/snapshots/ are thin over these.
 */
import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import type { SandboxSessionRecord, SnapshotRecord } from "../../ports/storage.ts";
import { requireAccount, type ToolContext } from "../../tool.ts";
import { runtimeCall } from "../../tools/sandboxes/sessions.ts";
import { resolveImage } from "../images/images.ts";
import { capacityRefusal, monthlyRefusal } from "../sessions/capacity.ts";

export const snapshotIdParameter = z.string().min(1).max(64).describe("Snapshot id, from create_snapshot");

export const snapshotOut = z.object({
  id: z.string(),
  session_id: z.string(),
  label: z.string().nullable(),
  status: z.enum(["creating", "ready"]),
  size_bytes: z.number().int(),
  size: z.enum(["small", "medium", "large"]),
  storage_gb: z.number().nullable(),
  runtime: z.string(),
  created_at: z.string(),
});

export function toSnapshotOut(snapshot: SnapshotRecord): z.input<typeof snapshotOut> {
  return {
    id: snapshot.id,
    session_id: snapshot.sessionId,
    label: snapshot.label,
    status: snapshot.status,
    size_bytes: snapshot.sizeBytes,
    size: snapshot.size,
    storage_gb: snapshot.storageGb,
    runtime: snapshot.runtime,
    created_at: snapshot.createdAt.toISOString(),
  };
}

const notSupported = () =>
  new ServiceError("snapshots_not_supported", "This server's sandbox runtime does not take snapshots");

export const snapshotNotFound = () => new ServiceError("not_found", "Snapshot not found");

type SnapshotContext = ToolContext<"config" | "sandboxRuntime" | "storage">;

/** Takes a snapshot of an active session: the row under the cap first, then the runtime's copy. */
export async function takeSnapshot(
  context: SnapshotContext,
  session: SandboxSessionRecord,
  label: string | null,
): Promise<SnapshotRecord> {
  const { config, sandboxRuntime, storage } = context.platform;
  const take = sandboxRuntime.snapshot?.bind(sandboxRuntime);
  if (take === undefined) throw notSupported();
  const record: SnapshotRecord = {
    id: crypto.randomUUID(),
    accountId: session.accountId,
    sessionId: session.id,
    label,
    size: session.size,
    storageGb: session.storageGb,
    imageId: session.imageId,
    runtime: sandboxRuntime.name,
    status: "creating",
    sizeBytes: 0,
    handle: null,
    createdAt: context.now,
  };
  await storage.snapshots.create(record, config.SVC_MAX_SNAPSHOTS_PER_ACCOUNT);
  try {
    const taken = await runtimeCall(context, "snapshot", () => take(session.id, record.id));
    await storage.snapshots.settle(record.id, taken);
    return { ...record, status: "ready", sizeBytes: taken.sizeBytes, handle: taken.handle };
  } catch (error) {
    // Nothing half-taken stays, and the slot is free again.
    await sandboxRuntime.deleteSnapshot?.(record.id, null).catch(() => {});
    await storage.snapshots.delete(record.accountId, record.id);
    throw error;
  }
}

/** Removes the snapshot's storage, then its row (a failed removal leaves both, for a retry). */
export async function deleteSnapshot(context: SnapshotContext, snapshot: SnapshotRecord): Promise<void> {
  const { sandboxRuntime, storage } = context.platform;
  const remove = sandboxRuntime.deleteSnapshot?.bind(sandboxRuntime);
  if (remove !== undefined)
    await runtimeCall(context, "snapshot delete", () => remove(snapshot.id, snapshot.handle));
  if (!(await storage.snapshots.delete(snapshot.accountId, snapshot.id))) throw snapshotNotFound();
}

/**
 * A new sandbox whose disk starts from the snapshot: the source's size, storage and image, none of
 * its grants (secrets, MCP connections, volumes), under the same caps as a create.
 */
export async function restoreSnapshot(
  context: SnapshotContext,
  snapshot: SnapshotRecord,
  label: string | null,
): Promise<SandboxSessionRecord> {
  const accountId = requireAccount(context);
  const { config, sandboxRuntime, storage } = context.platform;
  if (sandboxRuntime.snapshot === undefined) throw notSupported();
  if (snapshot.status !== "ready") throw snapshotNotFound();
  const image = config.SVC_IMAGE_BUILDER_ENABLED
    ? await resolveImage(storage.images, accountId, snapshot.imageId)
    : undefined;
  const now = context.now;
  const session: SandboxSessionRecord = {
    id: crypto.randomUUID(),
    accountId,
    status: "active",
    label: label ?? snapshot.label,
    size: snapshot.size,
    storageGb: snapshot.storageGb,
    runtime: sandboxRuntime.name,
    podName: null,
    connectNote: null,
    imageId: image?.id ?? null,
    grants: { secretNames: [], mcpConnectionNames: [], volumeMounts: {}, egressHosts: [] },
    createdAt: now,
    expiresAt: new Date(now.getTime() + config.SVC_MAX_SESSION_MINUTES * 60_000),
    destroyedAt: null,
    endedReason: null,
  };
  await storage.sandboxSessions.reserve(
    accountId,
    [session],
    now,
    (figures) => capacityRefusal(config, 1, figures) ?? monthlyRefusal(config, figures, now),
  );
  try {
    const connect = await runtimeCall(context, "restore", () =>
      sandboxRuntime.create({
        id: session.id,
        accountId,
        size: session.size,
        storageGb: session.storageGb,
        egressHosts: [],
        volumeMounts: [],
        ...(image ? { image } : {}),
        fromSnapshot: { id: snapshot.id, handle: snapshot.handle },
      }),
    );
    session.podName = connect.podName;
    session.connectNote = connect.note;
    await storage.sandboxSessions.setConnection(session.id, connect.podName, connect.note);
  } catch (error) {
    await sandboxRuntime.destroy(session.id).catch(() => {});
    await storage.sandboxSessions.discard([session.id]);
    throw error;
  }
  return session;
}
