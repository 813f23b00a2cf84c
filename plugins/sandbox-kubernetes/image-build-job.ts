/**
 * The build Job of a custom image on Kubernetes (docs/sandboxes.md#images): an init container
 * writes the Dockerfile the spec implies, then kaniko builds it and pushes it to the operator's
 * repository, writing the pushed image's digest to its termination message. One Job per image.
 */
import type { V1Job } from "@kubernetes/client-node";
import type { ImageBuildSpec } from "../../core/ports/image-builder.ts";
import { accountIdLabel, managedByLabel, managedByValue } from "./manifests.ts";

export const imageIdLabel = "cairn.dev/image-id";
export const buildContainerName = "build";
/** Where packages land in the image, the same layout as a local layer. */
export const imageLayerRoot = "/opt/cairn/image";

export interface ImageJobOptions {
  /** Base name → the image it starts from. */
  baseImages: Readonly<Record<string, string>>;
  builderImage: string;
  /** Where built images are pushed, e.g. registry.example.com/cairn/images. */
  repository: string;
  /** A docker-config Secret with the push credentials, mounted for kaniko (optional in the cluster). */
  registrySecret: string;
  timeoutSeconds: number;
}

export const imageJobName = (imageId: string) => `cairn-image-build-${imageId}`;

const aptInstall = (entries: string[]) =>
  `RUN apt-get update && apt-get install -y --no-install-recommends ${entries.map((entry) => entry.replace("==", "=")).join(" ")} && rm -rf /var/lib/apt/lists/*`;

/** The Dockerfile of a spec; entries passed the exact-pin rules, so they need no quoting. */
export function imageDockerfile(spec: ImageBuildSpec, baseImage: string): string {
  const lines = [`FROM ${baseImage}`];
  const packages = spec.aptPackages.length + spec.pythonPackages.length + spec.npmPackages.length;
  // Installing writes to system paths and /opt; the sandbox pod runs as its own user anyway.
  if (packages > 0) lines.push("USER root");
  if (spec.aptPackages.length > 0) lines.push(aptInstall(spec.aptPackages));
  if (spec.pythonPackages.length > 0) {
    lines.push(
      // A base without pip (the Debian-based node images have Python but not always pip) gets it.
      "RUN python3 -m pip --version >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*)",
      `RUN python3 -m pip install --no-cache-dir --break-system-packages --target ${imageLayerRoot}/python ${spec.pythonPackages.join(" ")}`,
      `ENV PYTHONPATH=${imageLayerRoot}/python`,
    );
  }
  if (spec.npmPackages.length > 0) {
    lines.push(
      `RUN npm install --prefix ${imageLayerRoot}/npm --no-audit --no-fund ${spec.npmPackages.map((entry) => entry.replace("==", "@")).join(" ")}`,
      `ENV NODE_PATH=${imageLayerRoot}/npm/node_modules`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export function buildImageJob(spec: ImageBuildSpec, namespace: string, options: ImageJobOptions): V1Job {
  const baseImage = options.baseImages[spec.base];
  if (!baseImage) throw new Error(`no image for base ${spec.base}`);
  const labels = {
    [managedByLabel]: managedByValue,
    [imageIdLabel]: spec.id,
    [accountIdLabel]: spec.accountId,
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: imageJobName(spec.id), namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: options.timeoutSeconds,
      // A backstop: Cairn deletes the Job itself once it has read the outcome.
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          initContainers: [
            {
              name: "dockerfile",
              image: baseImage,
              command: ["/bin/sh", "-c", 'printf "%s" "$DOCKERFILE" > /workspace/Dockerfile'],
              env: [{ name: "DOCKERFILE", value: imageDockerfile(spec, baseImage) }],
              volumeMounts: [{ name: "workspace", mountPath: "/workspace" }],
            },
          ],
          containers: [
            {
              name: buildContainerName,
              image: options.builderImage,
              args: [
                "--context=dir:///workspace",
                "--dockerfile=/workspace/Dockerfile",
                `--destination=${options.repository}:${spec.specHash}`,
                "--digest-file=/dev/termination-log",
                "--reproducible",
              ],
              terminationMessagePolicy: "File",
              volumeMounts: [
                { name: "workspace", mountPath: "/workspace" },
                { name: "registry-credentials", mountPath: "/kaniko/.docker", readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: "workspace", emptyDir: {} },
            {
              name: "registry-credentials",
              secret: {
                secretName: options.registrySecret,
                optional: true,
                items: [{ key: ".dockerconfigjson", path: "config.json" }],
              },
            },
          ],
        },
      },
    },
  };
}
