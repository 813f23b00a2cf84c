/**
 * The Kubernetes objects of one sandbox: a Pod under the restricted pod-security profile and a
 * NetworkPolicy that denies all ingress and all egress except to the addresses of the hosts the
 * sandbox was granted; and the PersistentVolumeClaim of a volume. Pure functions, so the exact
 * manifests are easy to read and to assert.
 */

import type { V1NetworkPolicy, V1PersistentVolumeClaim, V1Pod, V1Volume } from "@kubernetes/client-node";
import { defaultStorageGb, ServiceError } from "../../core/index.ts";
import type { SandboxSize, SandboxSpec, VolumeSpec } from "../../core/ports/sandbox-runtime.ts";

export const containerName = "sandbox";
export const managedByLabel = "app.kubernetes.io/managed-by";
export const managedByValue = "cairn";
export const sessionIdLabel = "cairn.dev/session-id";
export const accountIdLabel = "cairn.dev/account-id";
export const volumeIdLabel = "cairn.dev/volume-id";
/** Remembers the volume mount paths so the file roots survive a restart of the control plane. */
export const mountPathsAnnotation = "cairn.dev/mount-paths";
export const managedBySelector = `${managedByLabel}=${managedByValue}`;

/** A non-root uid/gid that exists in no base image on purpose: the sandbox owns nothing else. */
export const sandboxUserId = 65532;

export interface SizeResources {
  /** CPU request (guaranteed share) and limit (cap), as Kubernetes quantities. */
  cpuRequest: string;
  cpuLimit: string;
  /** Memory request and limit are equal so a sandbox is never OOM-killed for a neighbour's burst. */
  memory: string;
}

export const defaultSizes: Record<SandboxSize, SizeResources> = {
  small: { cpuRequest: "250m", cpuLimit: "1", memory: "1Gi" },
  medium: { cpuRequest: "500m", cpuLimit: "2", memory: "4Gi" },
  large: { cpuRequest: "1", cpuLimit: "4", memory: "8Gi" },
};

export interface ManifestOptions {
  image: string;
  sizes: Record<SandboxSize, SizeResources>;
  activeDeadlineSeconds: number;
  runtimeClassName: string | null;
  egressPorts: number[];
  allowPrivateEgress: boolean;
  volumeClaimName: (volumeId: string) => string;
  /** The StorageClass of volume claims; null uses the cluster's default class. */
  volumeStorageClass: string | null;
  /** The /workspace volume without its name (snapshots.ts); default an emptyDir of `storage`. */
  workspaceVolume?: (spec: SandboxSpec, storage: string) => Omit<V1Volume, "name">;
}

// DNS label (RFC 1123) for the id part of object names; label values for the account id.
const namePartPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const labelValuePattern = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export function isValidSandboxId(id: string): boolean {
  return id.length <= 47 && namePartPattern.test(id);
}

/** The name of both the Pod and the NetworkPolicy of a sandbox. */
export function objectName(id: string): string {
  if (!isValidSandboxId(id)) {
    throw new ServiceError("sandbox_operation_failed", "Sandbox operation failed", {
      cause: new Error(`sandbox id is not a valid Kubernetes name part: ${JSON.stringify(id)}`),
    });
  }
  return `cairn-sandbox-${id}`;
}

function accountLabel(accountId: string): string {
  if (accountId.length > 63 || !labelValuePattern.test(accountId)) {
    throw new ServiceError("sandbox_operation_failed", "Sandbox operation failed", {
      cause: new Error(`account id is not a valid label value: ${JSON.stringify(accountId)}`),
    });
  }
  return accountId;
}

export function sandboxLabels(spec: Pick<SandboxSpec, "id" | "accountId">): Record<string, string> {
  return {
    [managedByLabel]: managedByValue,
    [sessionIdLabel]: spec.id,
    [accountIdLabel]: accountLabel(spec.accountId),
  };
}

/** Whole gibibytes read best ("2Gi"); fractions are rounded up to the next mebibyte. */
export function storageQuantity(gigabytes: number): string {
  return Number.isInteger(gigabytes) ? `${gigabytes}Gi` : `${Math.ceil(gigabytes * 1024)}Mi`;
}

/**
 * A volume's claim: ReadWriteOnce of exactly its size. The storage behind it enforces the size
 * (a write past it fails with ENOSPC inside the pod); the claim outlives every pod that mounts it.
 */
export function buildVolumeClaim(spec: VolumeSpec, options: ManifestOptions): V1PersistentVolumeClaim {
  if (!isValidSandboxId(spec.id)) {
    throw new ServiceError("sandbox_operation_failed", "Sandbox operation failed", {
      cause: new Error(`volume id is not a valid Kubernetes name part: ${JSON.stringify(spec.id)}`),
    });
  }
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: options.volumeClaimName(spec.id),
      labels: {
        [managedByLabel]: managedByValue,
        [volumeIdLabel]: spec.id,
        [accountIdLabel]: accountLabel(spec.accountId),
      },
    },
    spec: {
      accessModes: ["ReadWriteOnce"],
      ...(options.volumeStorageClass ? { storageClassName: options.volumeStorageClass } : {}),
      resources: { requests: { storage: storageQuantity(Math.ceil(spec.sizeBytes / 1024 ** 2) / 1024) } },
    },
  };
}

export function buildPod(spec: SandboxSpec, options: ManifestOptions): V1Pod {
  const size = options.sizes[spec.size];
  const storage = storageQuantity(spec.storageGb ?? defaultStorageGb[spec.size]);
  const claims = spec.volumeMounts.map((mount, index) => ({ ...mount, volumeName: `volume-${index}` }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: objectName(spec.id),
      labels: sandboxLabels(spec),
      annotations: {
        [mountPathsAnnotation]: JSON.stringify(spec.volumeMounts.map((mount) => mount.mountPath)),
      },
    },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      // The reaper destroys sessions long before this; it only bounds pods the control plane lost.
      activeDeadlineSeconds: options.activeDeadlineSeconds,
      terminationGracePeriodSeconds: 0,
      ...(options.runtimeClassName ? { runtimeClassName: options.runtimeClassName } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: sandboxUserId,
        runAsGroup: sandboxUserId,
        // Makes the emptyDirs and persistent volumes writable by the sandbox user.
        fsGroup: sandboxUserId,
        fsGroupChangePolicy: "OnRootMismatch",
        seccompProfile: { type: "RuntimeDefault" },
      },
      containers: [
        {
          name: containerName,
          // A sandbox started from a custom image runs the image its build Job pushed.
          image: spec.image?.registryRef ?? options.image,
          imagePullPolicy: "IfNotPresent",
          command: ["sleep", "infinity"],
          workingDir: "/workspace",
          env: [
            { name: "HOME", value: "/workspace" },
            { name: "TMPDIR", value: "/tmp" },
          ],
          // storage_gb bounds everything the pod writes (both emptyDirs, logs, the container
          // layer): the request makes the scheduler pick a node with that much room, the limit
          // makes the kubelet evict a pod that writes past it.
          resources: {
            requests: { cpu: size.cpuRequest, memory: size.memory, "ephemeral-storage": storage },
            limits: { cpu: size.cpuLimit, memory: size.memory, "ephemeral-storage": storage },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          },
          volumeMounts: [
            { name: "workspace", mountPath: "/workspace" },
            { name: "tmp", mountPath: "/tmp" },
            ...claims.map((claim) => ({ name: claim.volumeName, mountPath: claim.mountPath })),
          ],
        },
      ],
      volumes: [
        {
          name: "workspace",
          ...(options.workspaceVolume?.(spec, storage) ?? { emptyDir: { sizeLimit: storage } }),
        },
        { name: "tmp", emptyDir: { sizeLimit: storage } },
        ...claims.map((claim) => ({
          name: claim.volumeName,
          persistentVolumeClaim: { claimName: options.volumeClaimName(claim.volumeId) },
        })),
      ],
    },
  };
}

/**
 * NetworkPolicy matches addresses, not host names: a sandbox granted hosts may reach DNS and
 * the egress ports of exactly the addresses those hosts resolved to when it was created (one
 * /32 or /128 block each, sorted); one granted none may reach nothing at all.
 */
export function buildNetworkPolicy(
  spec: SandboxSpec,
  options: ManifestOptions,
  grantedAddresses: string[],
): V1NetworkPolicy {
  const allowEgress = spec.egressHosts.length > 0 && grantedAddresses.length > 0;
  const blocks = [...new Set(grantedAddresses)]
    .sort()
    .map((address) => ({ ipBlock: { cidr: address.includes(":") ? `${address}/128` : `${address}/32` } }));
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: objectName(spec.id), labels: sandboxLabels(spec) },
    spec: {
      podSelector: { matchLabels: { [managedByLabel]: managedByValue, [sessionIdLabel]: spec.id } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: allowEgress
        ? [
            {
              to: [{ namespaceSelector: {}, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
              ports: [
                { protocol: "UDP", port: 53 },
                { protocol: "TCP", port: 53 },
              ],
            },
            { to: blocks, ports: options.egressPorts.map((port) => ({ protocol: "TCP", port })) },
          ]
        : [],
    },
  };
}
