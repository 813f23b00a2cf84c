/**
 * The Kubernetes sandbox runtime plugin: a pod per sandbox, and a Job per custom image build
 * (README.md). Its client is loaded only when SVC_SANDBOX_RUNTIME=kubernetes picks it: it is large
 * and most deployments do not use it.
 */
import { definePlugin, version } from "../../core/index.ts";

export default definePlugin({
  name: "sandbox-kubernetes",
  version,
  ports: {
    sandboxRuntime: {
      async kubernetes({ config, logger }) {
        const { createKubernetesSandboxRuntime } = await import("./runtime.ts");
        return createKubernetesSandboxRuntime({
          namespace: config.SVC_KUBE_NAMESPACE,
          image: config.SVC_KUBE_SANDBOX_IMAGE,
          allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS,
          snapshotClass: config.SVC_KUBE_SNAPSHOT_CLASS,
          workspaceStorageClass: config.SVC_KUBE_WORKSPACE_STORAGE_CLASS,
          logger,
        });
      },
    },
    imageBuilder: {
      async kubernetes({ config }) {
        const { createKubernetesImageBuilder } = await import("./image-builder.ts");
        return createKubernetesImageBuilder({
          namespace: config.SVC_KUBE_BUILD_NAMESPACE ?? config.SVC_KUBE_NAMESPACE,
          repository: config.SVC_KUBE_IMAGE_REPOSITORY,
          builderImage: config.SVC_KUBE_IMAGE_BUILDER_IMAGE,
          timeoutSeconds: config.SVC_IMAGE_BUILD_TIMEOUT_SECONDS,
        });
      },
    },
  },
});
