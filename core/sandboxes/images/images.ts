/**
 * Custom sandbox images (docs/sandboxes.md#images): the bases an operator offers and what each
 * supports, the exact-pin rules of package entries, the spec's hash (equal specs build the same
 * thing), the build queue that runs builds in the server process, and resolving create's
 * `image_id` to the layer the runtime starts from. Written once over the storage and builder ports.
 */
import type { Config } from "../../config.ts";
import { ServiceError } from "../../errors.ts";
import type { ImageBuilder } from "../../ports/image-builder.ts";
import type { Logger } from "../../ports/logger.ts";
import type { SandboxSpec } from "../../ports/sandbox-runtime.ts";
import type { ImageRecord, ImageRepository } from "../../ports/storage.ts";

export type PackageKind = "python" | "apt" | "npm";

/** Every base Cairn knows, with the package kinds its toolchain can install and run. */
export const imageBases: Readonly<Record<string, { kinds: readonly PackageKind[]; description: string }>> = {
  default: {
    kinds: ["python", "apt", "npm"],
    description: "Debian with Python 3 and Node.js: Python, apt and npm packages",
  },
  minimal: {
    kinds: ["apt"],
    description: "Debian without Python or Node.js: apt packages only",
  },
};

/** The bases this deployment offers: SVC_IMAGE_BASES (names from `imageBases`), or all of them. */
export function offeredBases(config: Config): string[] {
  const configured = config.SVC_IMAGE_BASES.filter((name) => Object.hasOwn(imageBases, name));
  return configured.length > 0 ? configured : Object.keys(imageBases);
}

export const imagesEnabled = (config: Config) => config.SVC_IMAGE_BUILDER_ENABLED;

// Names as each package manager spells them; versions exact: no ranges, wildcards or tags.
const packageRules: Record<PackageKind, { name: RegExp; version: RegExp }> = {
  npm: {
    name: /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/,
    version: /^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/,
  },
  python: {
    name: /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/,
    version: /^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$/,
  },
  apt: {
    name: /^[a-z0-9][a-z0-9+.-]+$/,
    version: /^(\d+:)?[0-9][A-Za-z0-9.+~-]*$/,
  },
};

/** Why a package entry is refused, or null when it is `name==version` with an exact version. */
export function packageEntryProblem(kind: PackageKind, entry: string): string | null {
  const separator = entry.indexOf("==");
  if (separator < 0) return "must pin an exact version as name==version";
  const name = entry.slice(0, separator);
  const version = entry.slice(separator + 2);
  if (!packageRules[kind].name.test(name)) return `must start with a valid ${kind} package name`;
  if (!packageRules[kind].version.test(version)) {
    return "must pin one exact version (no ranges, wildcards, tags or extra constraints)";
  }
  return null;
}

export const packageName = (entry: string) => entry.slice(0, entry.indexOf("=="));

export interface ImageSpec {
  base: string;
  pythonPackages: string[];
  aptPackages: string[];
  npmPackages: string[];
}

/** SHA-256 hex of the spec with each list sorted: the same packages in any order are one spec. */
export async function specHash(spec: ImageSpec): Promise<string> {
  const canonical = JSON.stringify([
    spec.base,
    [...spec.pythonPackages].sort(),
    [...spec.aptPackages].sort(),
    [...spec.npmPackages].sort(),
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const logTailBytes = 4096;

/** The last 4 KiB of a build log (whole characters only). */
export function logTail(log: string): string {
  const bytes = new TextEncoder().encode(log);
  if (bytes.length <= logTailBytes) return log;
  return new TextDecoder().decode(bytes.subarray(bytes.length - logTailBytes)).replace(/^\uFFFD+/, "");
}

/** Builds in the server process: queued images are claimed, built and settled one promise each. */
export interface ImageBuilds {
  /** Starts building a queued image (claimed atomically, so a second enqueue does nothing). */
  enqueue(id: string): void;
  /**
   * Start-up: an image a stopped or crashed server left `building` goes back to `queued`, and
   * every queued image is built (docs/sandboxes.md#images).
   */
  resume(): Promise<void>;
  /** Stops the build of a deleted image, if this process runs it (its slot is free at once). */
  cancel(id: string): void;
  /** Resolves when no build is in flight (tests and shutdown). */
  idle(): Promise<void>;
  /** Aborts builds in flight; they stay `building` and the next start re-queues them. */
  close(): Promise<void>;
}

export function createImageBuilds(settings: {
  images: ImageRepository;
  builder: ImageBuilder;
  logger: Logger;
  now: () => Date;
}): ImageBuilds {
  const { images, builder, logger, now } = settings;
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  const running = new Map<string, AbortController>();

  async function run(id: string): Promise<void> {
    const image = await images.claim(id);
    if (!image) return;
    logger.info({ imageId: id, base: image.base }, "image build started");
    const cancelled = new AbortController();
    running.set(id, cancelled);
    let result: Awaited<ReturnType<ImageBuilder["build"]>>;
    try {
      result = await builder.build(
        {
          id: image.id,
          accountId: image.accountId,
          base: image.base,
          pythonPackages: image.pythonPackages,
          aptPackages: image.aptPackages,
          npmPackages: image.npmPackages,
          specHash: image.specHash,
        },
        AbortSignal.any([abort.signal, cancelled.signal]),
      );
    } catch (error) {
      if (abort.signal.aborted || cancelled.signal.aborted) return;
      logger.error({ err: error, imageId: id }, "image builder failed");
      result = { status: "failed", reason: "The builder failed unexpectedly", log: "" };
    } finally {
      running.delete(id);
    }
    const settled = await images.settle(id, {
      status: result.status,
      digest: result.status === "completed" ? result.digest : null,
      registryRef: result.status === "completed" ? result.registryRef : null,
      layerPath: result.status === "completed" ? result.layerPath : null,
      failureReason: result.status === "failed" ? result.reason : null,
      buildLogTail: logTail(result.log),
      completedAt: now(),
    });
    logger.info({ imageId: id, status: result.status, settled }, "image build finished");
  }

  function track(promise: Promise<void>) {
    const tracked = promise
      .catch((error) => logger.error({ err: error }, "image build bookkeeping failed"))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }

  return {
    enqueue(id) {
      if (!abort.signal.aborted) track(run(id));
    },
    cancel(id) {
      running.get(id)?.abort();
    },
    async resume() {
      for (const id of await images.requeueInterrupted()) this.enqueue(id);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async close() {
      abort.abort();
      await this.idle();
      await builder.close?.();
    },
  };
}

/** A create's `image_id`: the account's completed image as the runtime takes it, or 404 not_found. */
export async function resolveImage(
  images: ImageRepository,
  accountId: string,
  imageId: string | null,
): Promise<SandboxSpec["image"] | undefined> {
  if (imageId === null) return undefined;
  const image: ImageRecord | null = await images.get(accountId, imageId);
  if (image?.status !== "completed" || image.digest === null) {
    throw new ServiceError("not_found", "Image not found or not completed");
  }
  return {
    id: image.id,
    base: image.base,
    digest: image.digest,
    layerPath: image.layerPath,
    registryRef: image.registryRef,
  };
}
