/**
 * Snapshots on the Kubernetes runtime (docs/sandboxes.md#snapshots). With a VolumeSnapshotClass
 * configured (SVC_KUBE_SNAPSHOT_CLASS), a sandbox's /workspace is a generic ephemeral volume: the
 * API server makes its claim, `<pod>-workspace`, owned by the pod. A snapshot is a
 * snapshot.storage.k8s.io/v1 VolumeSnapshot of that claim, taken after a `sync` in the pod (crash
 * consistent), polled until `readyToUse`; a restore is a new pod whose claim template starts from
 * it (`dataSource`). Without a class the workspace stays an emptyDir and every snapshot call
 * answers snapshots_not_supported, naming the setting.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { CoreV1Api, CustomObjectsApi, V1Volume } from "@kubernetes/client-node";
import { ServiceError } from "../../core/index.ts";
import type { Logger } from "../../core/ports/logger.ts";
import type { SandboxRuntime, SandboxSpec, SnapshotTaken } from "../../core/ports/sandbox-runtime.ts";
import { isValidSandboxId, managedByLabel, managedByValue, objectName, sessionIdLabel } from "./manifests.ts";
import type { PodCommandRunner } from "./pod-exec.ts";

export const snapshotIdLabel = "cairn.dev/snapshot-id";
// One place for the custom resource, also read by test/deploy/kubernetes-manifests.test.ts for RBAC.
const volumeSnapshots = { group: "snapshot.storage.k8s.io", version: "v1", plural: "volumesnapshots" };

export interface SnapshotSettings {
  /** The VolumeSnapshotClass (SVC_KUBE_SNAPSHOT_CLASS); null: no snapshots, the workspace is an emptyDir. */
  snapshotClass: string | null;
  /** StorageClass of the workspace claims (SVC_KUBE_WORKSPACE_STORAGE_CLASS); null: the cluster's default. */
  workspaceStorageClass: string | null;
}

const notConfigured = () =>
  new ServiceError("snapshots_not_supported", "This server's sandbox runtime does not take snapshots", {
    remediation:
      "The operator can enable them on Kubernetes by setting SVC_KUBE_SNAPSHOT_CLASS to a VolumeSnapshotClass of the cluster (docs/sandboxes.md#snapshots).",
  });

/** The VolumeSnapshot of a Cairn snapshot. */
export function snapshotName(snapshotId: string): string {
  if (!isValidSandboxId(snapshotId)) {
    throw new ServiceError("sandbox_operation_failed", "Sandbox operation failed", {
      cause: new Error(`snapshot id is not a valid Kubernetes name part: ${JSON.stringify(snapshotId)}`),
    });
  }
  return `cairn-snapshot-${snapshotId}`;
}

/** The claim the API server makes for a pod's ephemeral volume: `<pod>-<volume>`. */
export function workspaceClaimName(sandboxId: string): string {
  return `${objectName(sandboxId)}-workspace`;
}

/**
 * The pod's /workspace volume (without its name): an emptyDir of `storage` without a snapshot
 * class; with one, an ephemeral claim of `storage` (ReadWriteOnce), started from the snapshot
 * on a restore.
 */
export function workspaceVolume(
  settings: SnapshotSettings,
  spec: SandboxSpec,
  storage: string,
): Omit<V1Volume, "name"> {
  if (settings.snapshotClass === null) {
    if (spec.fromSnapshot) throw notConfigured();
    return { emptyDir: { sizeLimit: storage } };
  }
  const from = spec.fromSnapshot;
  return {
    ephemeral: {
      volumeClaimTemplate: {
        metadata: { labels: { [managedByLabel]: managedByValue, [sessionIdLabel]: spec.id } },
        spec: {
          accessModes: ["ReadWriteOnce"],
          ...(settings.workspaceStorageClass ? { storageClassName: settings.workspaceStorageClass } : {}),
          resources: { requests: { storage } },
          ...(from
            ? {
                dataSource: {
                  apiGroup: volumeSnapshots.group,
                  kind: "VolumeSnapshot",
                  name: from.handle ?? snapshotName(from.id),
                },
              }
            : {}),
        },
      },
    },
  };
}

const binaryUnits: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};
const decimalUnits: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** Bytes of a Kubernetes quantity ("5Gi", "5368709120", "1e9", "500M"), or null when unreadable. */
export function quantityBytes(quantity: unknown): number | null {
  if (typeof quantity !== "string") return null;
  const match = /^(\d+(?:\.\d+)?)(?:([KMGTP]i|[kMGTP]?)|e(\d+))$/.exec(quantity.trim());
  if (match === null) return null;
  const factor =
    match[3] !== undefined ? 10 ** Number(match[3]) : (binaryUnits[match[2]] ?? decimalUnits[match[2]]);
  return Math.ceil(Number(match[1]) * factor);
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

interface VolumeSnapshotStatus {
  readyToUse?: boolean;
  restoreSize?: string;
  error?: { message?: string; time?: string };
}

export function createPodSnapshots(options: {
  settings: SnapshotSettings;
  namespace: string;
  core: CoreV1Api;
  customObjects: CustomObjectsApi;
  runCommand: PodCommandRunner;
  logger: Logger;
  /**
   * The runtime's failure for a call that went wrong: a refusal only the operator can fix (a
   * missing grant) named as such, anything else a retryable `sandbox_operation_failed`.
   */
  failed(message: string, cause: unknown): ServiceError;
  /** How long a snapshot may take to become readyToUse (default 300 000 ms), polled every pollIntervalMs. */
  timeoutMs: number;
  pollIntervalMs: number;
  signal: AbortSignal;
}): Required<Pick<SandboxRuntime, "snapshot" | "deleteSnapshot">> {
  const { settings, namespace, core, customObjects, logger, failed } = options;

  /** The workspace claim's capacity, read before snapshotting: a sandbox without one cannot be. */
  const readClaim = async (sandboxId: string) => {
    try {
      return await core.readNamespacedPersistentVolumeClaim({
        name: workspaceClaimName(sandboxId),
        namespace,
      });
    } catch (error) {
      if (statusCode(error) !== 404) throw error;
      throw new ServiceError("snapshots_not_supported", "This sandbox's workspace cannot be snapshotted", {
        remediation:
          "It was created before snapshots were enabled (its /workspace is an emptyDir): create a new sandbox and snapshot that.",
        cause: error,
      });
    }
  };

  const waitUntilReady = async (name: string): Promise<VolumeSnapshotStatus> => {
    const deadline = performance.now() + options.timeoutMs;
    for (;;) {
      options.signal.throwIfAborted();
      const snapshot = (await customObjects.getNamespacedCustomObject({
        ...volumeSnapshots,
        namespace,
        name,
      })) as {
        status?: VolumeSnapshotStatus;
      };
      const status = snapshot.status ?? {};
      if (status.error?.message) {
        // The driver's words may name cloud internals: they go to the log, not to the client.
        logger.warn(
          { volumeSnapshot: name, error: status.error.message },
          "the cluster failed a VolumeSnapshot",
        );
        throw new ServiceError(
          "snapshots_not_supported",
          "The cluster's storage could not snapshot the workspace",
          {
            remediation:
              "Retrying will not help: the operator should check the VolumeSnapshotClass (SVC_KUBE_SNAPSHOT_CLASS) and its CSI driver (kubectl describe volumesnapshot).",
            cause: new Error(`VolumeSnapshot ${name}: ${status.error.message}`),
          },
        );
      }
      if (status.readyToUse === true) return status;
      if (performance.now() + options.pollIntervalMs > deadline)
        throw new Error(`VolumeSnapshot ${name} not readyToUse after ${options.timeoutMs} ms`);
      await sleep(options.pollIntervalMs, undefined, { signal: options.signal });
    }
  };

  return {
    async snapshot(sandboxId, snapshotId): Promise<SnapshotTaken> {
      if (settings.snapshotClass === null) throw notConfigured();
      const name = snapshotName(snapshotId);
      try {
        const claim = await readClaim(sandboxId);
        // Writes the sandbox finished reach the volume before the driver cuts the snapshot.
        const synced = await options.runCommand({
          podName: objectName(sandboxId),
          argv: ["sync"],
          stdoutLimit: 4096,
          stderrLimit: 4096,
          deadlineMs: 60_000,
          signal: options.signal,
        });
        if (synced.exitCode !== 0) throw new Error(`sync in the pod exited ${synced.exitCode}`);
        await customObjects.createNamespacedCustomObject({
          ...volumeSnapshots,
          namespace,
          body: {
            apiVersion: `${volumeSnapshots.group}/${volumeSnapshots.version}`,
            kind: "VolumeSnapshot",
            metadata: {
              name,
              labels: {
                [managedByLabel]: managedByValue,
                [sessionIdLabel]: sandboxId,
                [snapshotIdLabel]: snapshotId,
              },
            },
            spec: {
              volumeSnapshotClassName: settings.snapshotClass,
              source: { persistentVolumeClaimName: workspaceClaimName(sandboxId) },
            },
          },
        });
        const status = await waitUntilReady(name);
        const sizeBytes =
          quantityBytes(status.restoreSize) ??
          quantityBytes(claim.status?.capacity?.storage) ??
          quantityBytes(claim.spec?.resources?.requests?.storage) ??
          0;
        return { sizeBytes, handle: name };
      } catch (error) {
        throw failed("Could not snapshot the sandbox", error);
      }
    },

    async deleteSnapshot(snapshotId, handle) {
      // Nothing was made for a snapshot taken while snapshots were off.
      if (handle === null && (settings.snapshotClass === null || !isValidSandboxId(snapshotId))) return;
      try {
        await customObjects.deleteNamespacedCustomObject({
          ...volumeSnapshots,
          namespace,
          name: handle ?? snapshotName(snapshotId),
        });
      } catch (error) {
        if (statusCode(error) !== 404) throw failed("Could not delete the snapshot", error);
      }
    },
  };
}
