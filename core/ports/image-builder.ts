/**
 * The image builder port: turns a custom image's spec (a base and exact-pinned packages) into a
 * layer the sandbox runtime can start from. `plugins/image-builder-local` builds a layer directory
 * in an isolated builder whose only way out is an egress proxy to the package registries;
 * `plugins/sandbox-kubernetes` runs a build Job that pushes an image. A build never throws for a
 * bad package: it answers `failed` with a reason and its log, and throws only when aborted.
 */

export interface ImageBuildSpec {
  /** The image id (UUID). */
  id: string;
  accountId: string;
  base: string;
  pythonPackages: string[];
  aptPackages: string[];
  npmPackages: string[];
  /** SHA-256 hex of the canonical spec. */
  specHash: string;
}

export type ImageBuildResult =
  | {
      status: "completed";
      /** `sha256:<hex>`: the content hash of the built layer. */
      digest: string;
      /** Kubernetes: the pushed image's reference; null locally. */
      registryRef: string | null;
      /** Local: the layer directory; null on Kubernetes. */
      layerPath: string | null;
      log: string;
    }
  | { status: "failed"; reason: string; log: string };

export interface ImageBuilder {
  build(spec: ImageBuildSpec, signal: AbortSignal): Promise<ImageBuildResult>;
  close?(): Promise<void>;
}
