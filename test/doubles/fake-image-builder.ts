/**
 * A controlled image builder for the REST suites: each build waits until the test settles it
 * (or settles at once when `autoSettle` is given), so builds in flight, queue order and outcomes
 * are the test's to choose. The real builders have their own suites
 * (plugins/image-builder-local, test/sandboxes/kubernetes-real-cluster-images.test.ts).
 */
import type { ImageBuilder, ImageBuildResult, ImageBuildSpec } from "../../core/ports/image-builder.ts";

export interface PendingBuild {
  spec: ImageBuildSpec;
  signal: AbortSignal;
  settle(result: ImageBuildResult): void;
}

export function createFakeImageBuilder(autoSettle?: (spec: ImageBuildSpec) => ImageBuildResult) {
  const pending: PendingBuild[] = [];
  const started: ImageBuildSpec[] = [];
  const waiters: Array<() => void> = [];
  const builder: ImageBuilder = {
    build(spec, signal) {
      started.push(spec);
      if (autoSettle) return Promise.resolve(autoSettle(spec));
      return new Promise<ImageBuildResult>((resolve, reject) => {
        pending.push({ spec, signal, settle: resolve });
        for (const wake of waiters.splice(0)) wake();
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
    },
  };
  return {
    builder,
    started,
    /** Waits for the build of `imageId` to start and returns it. */
    async next(imageId: string): Promise<PendingBuild> {
      for (;;) {
        const index = pending.findIndex((build) => build.spec.id === imageId);
        if (index >= 0) return pending.splice(index, 1)[0];
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

export const completedBuild = (spec: ImageBuildSpec): ImageBuildResult => ({
  status: "completed",
  digest: `sha256:${spec.specHash}`,
  registryRef: null,
  layerPath: `/layers/${spec.specHash}`,
  log: "built\n",
});
