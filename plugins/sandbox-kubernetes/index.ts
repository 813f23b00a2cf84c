/**
 * Entry of the Kubernetes sandbox runtime plugin: a pod per sandbox under the restricted
 * pod-security profile, reached through the Kubernetes API with @kubernetes/client-node.
 */

export { buildImageJob, imageDockerfile, imageJobName } from "./image-build-job.ts";
export {
  createKubernetesImageBuilder,
  defaultBaseImages,
  type KubernetesImageBuilderSettings,
} from "./image-builder.ts";
export { defaultSizes, type SizeResources } from "./manifests.ts";
export type { ExecWebSocket } from "./pod-exec.ts";
export {
  createKubernetesSandboxRuntime,
  defaultSandboxImage,
  type KubernetesSandboxRuntimeSettings,
} from "./runtime.ts";
