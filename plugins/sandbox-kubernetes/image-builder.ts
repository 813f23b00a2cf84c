/**
 * The Kubernetes image builder: one build Job per image (image-build-job.ts), once a dry run has
 * shown the namespace's Pod Security admits its pod, polled until it succeeds or fails; the outcome is read from its pod (the digest kaniko wrote to the termination
 * message, the end of the build log) and the Job is deleted with its pods. The built image's
 * reference `<repository>@<digest>` becomes the pod image of sandboxes started from it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { BatchV1Api, CoreV1Api, type KubeConfig, type V1Job } from "@kubernetes/client-node";
import type { ImageBuilder, ImageBuildResult, ImageBuildSpec } from "../../core/ports/image-builder.ts";
import { statusCode, statusMessage } from "./api-failures.ts";
import { buildContainerName, buildImageJob, type ImageJobOptions, imageJobName } from "./image-build-job.ts";
import { defaultKubeConfig, defaultSandboxImage } from "./runtime.ts";

export interface KubernetesImageBuilderSettings {
  namespace: string;
  kubeConfig?: KubeConfig;
  /** Where built images are pushed (SVC_KUBE_IMAGE_REPOSITORY); builds fail without one. */
  repository: string | undefined;
  /** The kaniko executor image (SVC_KUBE_IMAGE_BUILDER_IMAGE). */
  builderImage: string;
  timeoutSeconds: number;
  /** Base → image (default: default → node:22-bookworm, which has Python 3 and pip; minimal → debian:bookworm-slim). */
  baseImages?: Record<string, string>;
  /** Default `cairn-image-registry`. */
  registrySecret?: string;
  /** Default 2000 ms. */
  pollIntervalMs?: number;
}

export const defaultBaseImages: Readonly<Record<string, string>> = {
  default: "docker.io/library/node:22-bookworm",
  minimal: defaultSandboxImage,
};

const logTailBytes = 4096;

/** "succeeded", "failed", or null while it runs. */
function jobOutcome(job: V1Job): "succeeded" | "failed" | null {
  if ((job.status?.succeeded ?? 0) > 0) return "succeeded";
  if ((job.status?.failed ?? 0) > 0) return "failed";
  const condition = job.status?.conditions?.find(
    (entry) => (entry.type === "Complete" || entry.type === "Failed") && entry.status === "True",
  );
  if (condition) return condition.type === "Complete" ? "succeeded" : "failed";
  return null;
}

export function createKubernetesImageBuilder(settings: KubernetesImageBuilderSettings): ImageBuilder {
  const kubeConfig = settings.kubeConfig ?? defaultKubeConfig();
  const { namespace } = settings;
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const pollIntervalMs = settings.pollIntervalMs ?? 2000;

  async function outcome(name: string): Promise<{ message: string | null; log: string }> {
    const pods = await core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` });
    const pod = pods.items[0];
    const podName = pod?.metadata?.name;
    if (!podName) return { message: null, log: "" };
    const status = pod.status?.containerStatuses?.find((entry) => entry.name === buildContainerName);
    const log = await core
      .readNamespacedPodLog({
        name: podName,
        namespace,
        container: buildContainerName,
        limitBytes: logTailBytes,
      })
      .catch(() => "");
    return { message: status?.state?.terminated?.message?.trim() ?? null, log };
  }

  /**
   * What the namespace's Pod Security says of the build pod, asked with a dry run before any Job
   * exists: a namespace that refuses it (the sandbox namespace, `restricted`, refuses kaniko's
   * root pod) leaves the Job without a pod until its deadline, 15 minutes by default. Null when
   * the pod is admitted, or when the dry run cannot tell (no grant to create pods there).
   */
  async function podSecurityRefusal(job: V1Job): Promise<string | null> {
    const template = job.spec?.template;
    try {
      await core.createNamespacedPod({
        namespace,
        dryRun: "All",
        body: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: job.metadata?.name, labels: template?.metadata?.labels },
          spec: template?.spec,
        },
      });
      return null;
    } catch (error) {
      const message = statusMessage(error);
      const at = message.indexOf("violates PodSecurity");
      if (statusCode(error) !== 403 || at < 0) return null;
      return `The namespace ${namespace} refuses the build pod (${message.slice(at, at + 300)}); an operator must set SVC_KUBE_BUILD_NAMESPACE to a namespace whose Pod Security admits it`;
    }
  }

  return {
    async build(spec: ImageBuildSpec, signal: AbortSignal): Promise<ImageBuildResult> {
      if (!settings.repository) {
        return {
          status: "failed",
          reason: "No image repository is configured (SVC_KUBE_IMAGE_REPOSITORY)",
          log: "",
        };
      }
      const options: ImageJobOptions = {
        baseImages: { ...defaultBaseImages, ...settings.baseImages },
        builderImage: settings.builderImage,
        repository: settings.repository,
        registrySecret: settings.registrySecret ?? "cairn-image-registry",
        timeoutSeconds: settings.timeoutSeconds,
      };
      const name = imageJobName(spec.id);
      const job = buildImageJob(spec, namespace, options);
      const refusal = await podSecurityRefusal(job);
      if (refusal !== null) return { status: "failed", reason: refusal, log: "" };
      await batch.createNamespacedJob({ namespace, body: job });
      try {
        let state: "succeeded" | "failed" | null = null;
        while (state === null) {
          await sleep(pollIntervalMs, undefined, { signal });
          state = jobOutcome(await batch.readNamespacedJob({ name, namespace }));
        }
        const { message, log } = await outcome(name);
        if (state === "succeeded" && message && /^sha256:[0-9a-f]{64}$/.test(message)) {
          return {
            status: "completed",
            digest: message,
            registryRef: `${settings.repository}@${message}`,
            layerPath: null,
            log,
          };
        }
        return {
          status: "failed",
          reason:
            state === "succeeded"
              ? "The build Job finished without reporting an image digest"
              : "The build Job failed; see build_log_tail",
          log,
        };
      } finally {
        await batch
          .deleteNamespacedJob({ name, namespace, propagationPolicy: "Background" })
          .catch(() => undefined);
      }
    },
  };
}
