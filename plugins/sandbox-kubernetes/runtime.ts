/**
 * The Kubernetes sandbox runtime: one Pod and one NetworkPolicy per sandbox in one namespace,
 * one PersistentVolumeClaim per volume, commands and file access through the exec API. Every API failure a client can see becomes
 * ServiceError `sandbox_operation_failed` with a generic message; the cause stays on the error
 * (and in the log) and never reaches the client. Two are named instead (api-failures.ts): a
 * ResourceQuota's refusal is `global_capacity_reached`, and a refusal of the runtime's own
 * identity or a missing namespace `sandbox_runtime_misconfigured`.
 */

import { lookup } from "node:dns/promises";
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  NetworkingV1Api,
  type V1Pod,
} from "@kubernetes/client-node";
import { isUnsafeAddress, ServiceError } from "../../core/index.ts";
import { type Logger, silentLogger } from "../../core/ports/logger.ts";
import type {
  ExecResult,
  SandboxFileSystem,
  SandboxRuntime,
  SandboxSize,
  SandboxSpec,
} from "../../core/ports/sandbox-runtime.ts";
import { misconfiguration, quotaRefusal, statusCode } from "./api-failures.ts";
import { createPodFileSystem } from "./file-system.ts";
import {
  buildNetworkPolicy,
  buildPod,
  buildVolumeClaim,
  defaultSizes,
  isValidSandboxId,
  type ManifestOptions,
  managedBySelector,
  mountPathsAnnotation,
  objectName,
  type SizeResources,
  sessionIdLabel,
} from "./manifests.ts";
import { createPodCommandRunner, type ExecWebSocket, PodCommandError } from "./pod-exec.ts";
import { createPodProcessStarter, signalScript } from "./pod-process.ts";
import { createPodSnapshots, workspaceVolume } from "./snapshots.ts";
import { waitForRunningPod } from "./wait-for-pod.ts";

export interface KubernetesSandboxRuntimeSettings {
  namespace: string;
  /** Default: `loadFromDefault()` (KUBECONFIG, ~/.kube/config, then the in-cluster service account). */
  kubeConfig?: KubeConfig;
  /** The sandbox image; needs /bin/sh, GNU coreutils (timeout, realpath, head, stat) and GNU find. */
  image?: string;
  sizes?: Partial<Record<SandboxSize, SizeResources>>;
  /** Backstop lifetime of a pod the control plane lost track of (default 7200 s). */
  activeDeadlineSeconds?: number;
  /** A RuntimeClass such as gVisor or Kata for a second isolation layer (default none). */
  runtimeClassName?: string;
  /** TCP ports a sandbox with egress hosts may reach (default [443]). */
  egressPorts?: number[];
  /** Let sandboxes with egress reach private address ranges (SVC_ALLOW_PRIVATE_EGRESS; default false). */
  allowPrivateEgress?: boolean;
  /** PersistentVolumeClaim of a Cairn volume (default `cairn-volume-<volumeId>`). */
  volumeClaimName?: (volumeId: string) => string;
  /** StorageClass of volume claims (default: the cluster's default class). */
  volumeStorageClass?: string;
  /**
   * A VolumeSnapshotClass (SVC_KUBE_SNAPSHOT_CLASS): the workspace becomes an ephemeral claim
   * that snapshots copy (snapshots.ts). Default none: an emptyDir, and no snapshots.
   */
  snapshotClass?: string;
  /** StorageClass of those workspace claims (SVC_KUBE_WORKSPACE_STORAGE_CLASS; default: the cluster's default). */
  workspaceStorageClass?: string;
  /** How long a snapshot may take to become readyToUse (default 300 000 ms), polled every pollIntervalMs. */
  snapshotTimeoutMs?: number;
  /** A granted host's addresses, for the egress policy (default: the system resolver, every address). */
  resolveHost?: (host: string) => Promise<string[]>;
  /** How long create waits for the pod to run (default 120 000 ms), polling every pollIntervalMs (1000). */
  startTimeoutMs?: number;
  pollIntervalMs?: number;
  /** Client-side deadline of one file operation (default 60 000 ms). */
  fileOperationTimeoutMs?: number;
  /** How exec opens its websocket; the library's default handler unless a test injects one. */
  execWebSocket?: ExecWebSocket;
  /** The platform's logger: warnings about pods it cannot read or clean up (default: silent). */
  logger?: Logger;
}

export const defaultSandboxImage = "docker.io/library/debian:bookworm-slim";

const stdoutLimit = 1024 * 1024;
const stderrLimit = 256 * 1024;
// After the in-pod `timeout` has had the chance to end the command (TERM, then KILL 2 s later).
const clientGraceMs = 5000;
/**
 * `$3` is a token put in the command's environment (CAIRN_PROCESS, inherited by what it starts):
 * a cancelled exec is killed by signalling every process holding it (pod-process.ts), since
 * closing the exec's stream leaves the command running until its timeout.
 */
const execWrapper =
  'cd /workspace || exit 126; exec env CAIRN_PROCESS="$3" timeout -k 2 "$1" /bin/sh -c "$2"';

function operationFailed(message: string, cause: unknown): ServiceError {
  return cause instanceof ServiceError
    ? cause
    : new ServiceError("sandbox_operation_failed", message, { cause });
}

export function createKubernetesSandboxRuntime(settings: KubernetesSandboxRuntimeSettings): SandboxRuntime {
  const kubeConfig = settings.kubeConfig ?? defaultKubeConfig();
  const logger = settings.logger ?? silentLogger;
  const { namespace } = settings;
  // A refusal only the operator can fix says so; anything else is a failure worth retrying.
  const failed = (message: string, cause: unknown) => {
    const refused = misconfiguration(cause, namespace);
    if (!refused) return operationFailed(message, cause);
    logger.error({ err: cause }, `the cluster refuses the sandbox runtime: ${refused.message}`);
    return refused;
  };
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const networking = kubeConfig.makeApiClient(NetworkingV1Api);
  const runCommand = createPodCommandRunner({ kubeConfig, namespace, webSocket: settings.execWebSocket });
  const snapshotSettings = {
    // An empty setting is no setting.
    snapshotClass: settings.snapshotClass || null,
    workspaceStorageClass: settings.workspaceStorageClass || null,
  };
  const manifestOptions: ManifestOptions = {
    image: settings.image ?? defaultSandboxImage,
    sizes: { ...defaultSizes, ...settings.sizes },
    activeDeadlineSeconds: settings.activeDeadlineSeconds ?? 7200,
    runtimeClassName: settings.runtimeClassName ?? null,
    egressPorts: settings.egressPorts ?? [443],
    allowPrivateEgress: settings.allowPrivateEgress ?? false,
    volumeClaimName: settings.volumeClaimName ?? ((volumeId) => `cairn-volume-${volumeId}`),
    volumeStorageClass: settings.volumeStorageClass ?? null,
    workspaceVolume: (spec, storage) => workspaceVolume(snapshotSettings, spec, storage),
  };
  const resolveHost = settings.resolveHost ?? resolveWithSystem;
  const fileTimeoutMs = settings.fileOperationTimeoutMs ?? 60_000;
  // Volume mount paths per sandbox, for the file roots; refilled from pod annotations by list(),
  // and by loadSandbox() for a sandbox another replica created after this one started.
  const mountPaths = new Map<string, string[]>();
  const lifetime = new AbortController();
  const snapshots = createPodSnapshots({
    settings: snapshotSettings,
    namespace,
    core,
    customObjects: kubeConfig.makeApiClient(CustomObjectsApi),
    runCommand,
    logger,
    failed,
    timeoutMs: settings.snapshotTimeoutMs ?? 300_000,
    pollIntervalMs: settings.pollIntervalMs ?? 1000,
    signal: lifetime.signal,
  });
  const signalPod = async (podName: string, signal: "TERM" | "KILL", token: string) => {
    await runCommand({
      podName,
      argv: ["/bin/sh", "-c", signalScript, "cairn-signal", signal, token],
      stdoutLimit: 4096,
      stderrLimit: 4096,
      deadlineMs: 10_000,
    });
  };
  const startProcess = createPodProcessStarter({
    kubeConfig,
    namespace,
    webSocket: settings.execWebSocket,
    signal: signalPod,
  });

  const deleteQuietly = async (kind: "pod" | "policy" | "claim", name: string) => {
    try {
      if (kind === "pod") await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
      else if (kind === "claim") await core.deleteNamespacedPersistentVolumeClaim({ name, namespace });
      else await networking.deleteNamespacedNetworkPolicy({ name, namespace, gracePeriodSeconds: 0 });
    } catch (error) {
      if (statusCode(error) !== 404) throw error;
    }
  };

  /**
   * Every address of every granted host, resolved now: a host that resolves to nothing usable
   * fails the create rather than leaving the sandbox with less than it was granted. Private and
   * metadata addresses are left out unless private egress is allowed.
   */
  const grantedAddresses = async (hosts: string[]): Promise<string[]> => {
    const addresses: string[] = [];
    for (const host of hosts) {
      const literal = host.replace(/^\[|\]$/g, "");
      const resolved = /^[\d.]+$|:/.test(literal) ? [literal] : await resolveHost(host);
      const usable = resolved.filter(
        (address) => manifestOptions.allowPrivateEgress || !isUnsafeAddress(address),
      );
      if (usable.length === 0) throw new Error(`granted host ${host} has no usable public address`);
      addresses.push(...usable);
    }
    return addresses;
  };

  const rememberMounts = (pod: V1Pod) => {
    const id = pod.metadata?.labels?.[sessionIdLabel];
    if (!id) return;
    try {
      const paths: unknown = JSON.parse(pod.metadata?.annotations?.[mountPathsAnnotation] ?? "[]");
      if (Array.isArray(paths))
        mountPaths.set(
          id,
          paths.filter((path) => typeof path === "string"),
        );
    } catch {
      logger.warn({ sandboxId: id }, "sandbox pod has an unreadable mount-paths annotation");
    }
  };

  return {
    name: "kubernetes",
    ...snapshots,

    async create(spec: SandboxSpec) {
      const pod = buildPod(spec, manifestOptions);
      const name = objectName(spec.id);
      const created: Array<"pod" | "policy"> = [];
      try {
        const policy = buildNetworkPolicy(spec, manifestOptions, await grantedAddresses(spec.egressHosts));
        // The policy first, so the pod never runs a moment without it.
        await networking.createNamespacedNetworkPolicy({ namespace, body: policy });
        created.push("policy");
        await core.createNamespacedPod({ namespace, body: pod });
        created.push("pod");
        await waitForRunningPod({
          readPod: () => core.readNamespacedPod({ name, namespace }),
          timeoutMs: settings.startTimeoutMs ?? 120_000,
          pollIntervalMs: settings.pollIntervalMs ?? 1000,
          signal: lifetime.signal,
        });
      } catch (error) {
        for (const kind of created.reverse()) {
          await deleteQuietly(kind, name).catch((cleanupError: unknown) =>
            logger.warn(
              { sandboxId: spec.id, kind, error: String(cleanupError) },
              "could not clean up after a failed sandbox create",
            ),
          );
        }
        throw quotaRefusal(error) ?? failed("Could not create the sandbox", error);
      }
      mountPaths.set(
        spec.id,
        spec.volumeMounts.map((mount) => mount.mountPath),
      );
      return {
        podName: name,
        note: `Kubernetes pod ${name} in namespace ${namespace}; no network unless hosts were granted.`,
      };
    },

    async createVolume(spec) {
      const claim = buildVolumeClaim(spec, manifestOptions);
      try {
        await core.createNamespacedPersistentVolumeClaim({ namespace, body: claim });
      } catch (error) {
        throw failed("Could not create the volume", error);
      }
      return { pvcName: claim.metadata?.name ?? null };
    },

    async deleteVolume(id) {
      if (!isValidSandboxId(id)) return;
      try {
        await deleteQuietly("claim", manifestOptions.volumeClaimName(id));
      } catch (error) {
        throw failed("Could not delete the volume", error);
      }
    },

    async destroy(id) {
      mountPaths.delete(id);
      if (!isValidSandboxId(id)) return;
      const name = objectName(id);
      try {
        await deleteQuietly("pod", name);
        await deleteQuietly("policy", name);
      } catch (error) {
        throw failed("Could not destroy the sandbox", error);
      }
    },

    async list() {
      try {
        const pods = await core.listNamespacedPod({ namespace, labelSelector: managedBySelector });
        for (const pod of pods.items) rememberMounts(pod);
        return pods.items.flatMap((pod) => pod.metadata?.labels?.[sessionIdLabel] ?? []);
      } catch (error) {
        throw failed("Could not list sandboxes", error);
      }
    },

    async exec(id, request): Promise<ExecResult> {
      const started = performance.now();
      const timeoutSeconds = Math.max(1, Math.ceil(request.timeoutSeconds));
      const token = Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) =>
        byte.toString(16).padStart(2, "0"),
      ).join("");
      // A cancelled exec (a client that left) is killed in the pod with what it started.
      const onCancel = () => void signalPod(objectName(id), "KILL", token).catch(() => {});
      request.signal?.addEventListener("abort", onCancel, { once: true });
      try {
        const result = await runCommand({
          podName: objectName(id),
          argv: ["/bin/sh", "-c", execWrapper, "cairn-exec", String(timeoutSeconds), request.command, token],
          stdoutLimit,
          stderrLimit,
          deadlineMs: timeoutSeconds * 1000 + clientGraceMs,
          signal: request.signal ? AbortSignal.any([request.signal, lifetime.signal]) : lifetime.signal,
          onOutput: request.onOutput,
          budget: request.budget,
        });
        const durationMs = Math.round(performance.now() - started);
        // `timeout` exits 124 (TERM) or 137 (KILL); an early exit with those codes is the command's own.
        const killedByTimeout =
          (result.exitCode === 124 || result.exitCode === 137) && durationMs >= timeoutSeconds * 1000;
        return {
          exitCode: result.exitCode,
          stdout: result.stdout.toString("utf8"),
          stderr: result.stderr.toString("utf8"),
          timedOut: result.timedOut || killedByTimeout,
          truncated: result.truncated,
          durationMs,
          ...(result.output && { output: result.output }),
        };
      } catch (error) {
        throw failed(
          error instanceof PodCommandError && error.message === "exec cancelled"
            ? "The command was cancelled"
            : "Could not run the command in the sandbox",
          error,
        );
      } finally {
        request.signal?.removeEventListener("abort", onCancel);
      }
    },

    async spawnProcess(id, request) {
      if (lifetime.signal.aborted)
        throw new ServiceError("service_unavailable", "The sandbox runtime is closed");
      try {
        const started = await startProcess(objectName(id), request);
        // Closing the runtime ends its processes' streams, as it cancels its execs.
        const onClose = () => started.kill();
        lifetime.signal.addEventListener("abort", onClose, { once: true });
        void started.exited.then(() => lifetime.signal.removeEventListener("abort", onClose));
        return started;
      } catch (error) {
        throw failed("Could not start the process in the sandbox", error);
      }
    },

    async loadSandbox(id) {
      if (mountPaths.has(id)) return;
      try {
        const pod = await core.readNamespacedPod({ name: objectName(id), namespace });
        rememberMounts(pod);
      } catch (error) {
        // A pod that is gone has no files to reach; the file operation says so itself.
        if (statusCode(error) !== 404) throw failed("Could not read the sandbox's pod", error);
      }
    },

    files(id): SandboxFileSystem {
      const podName = objectName(id);
      const roots = ["/workspace", "/tmp", ...(mountPaths.get(id) ?? [])];
      return createPodFileSystem(roots, async ({ argv, stdin, stdoutLimit: limit }) => {
        try {
          return await runCommand({
            podName,
            argv: ["timeout", "-k", "2", String(Math.ceil(fileTimeoutMs / 1000)), ...argv],
            stdin,
            stdoutLimit: limit,
            stderrLimit: 64 * 1024,
            deadlineMs: fileTimeoutMs + clientGraceMs,
            signal: lifetime.signal,
          });
        } catch (error) {
          throw failed("Sandbox file operation failed", error);
        }
      });
    },

    async close() {
      lifetime.abort(new Error("sandbox runtime closed"));
    },
  };
}

async function resolveWithSystem(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

export function defaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  return kubeConfig;
}
