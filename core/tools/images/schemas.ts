/**
 * Custom sandbox images (docs/api.md#images): a base and exact-pinned package lists, built
 * asynchronously; create_sandbox's `image_id` starts a sandbox from a completed one.
 */
import { z } from "zod";
import type { ImageRecord } from "../../ports/storage.ts";
import { type PackageKind, packageEntryProblem } from "../../sandboxes/images/images.ts";
import { resourceId } from "../resource-id.ts";

export { imagesEnabled } from "../../sandboxes/images/images.ts";

export const imageStatuses = ["queued", "building", "completed", "failed"] as const;

export const imageIdParameter = resourceId.describe("Image id, from create_sandbox_image");

const examples: Record<PackageKind, string> = {
  python: "requests==2.32.3",
  apt: "jq==1.6-2.1",
  npm: "is-number==7.0.0 or @scope/name==1.2.3",
};

/** One list of `name==version` entries; a refused entry's error names its index. */
export const packageList = (kind: PackageKind) =>
  z
    .array(
      z
        .string()
        .max(200)
        .superRefine((entry, context) => {
          const problem = packageEntryProblem(kind, entry);
          if (problem) context.addIssue({ code: "custom", message: `${kind} package entry ${problem}` });
        }),
    )
    .max(100)
    .default([])
    .describe(`name==version, e.g. ${examples[kind]}`);

export const imageOut = z.object({
  id: z.string(),
  label: z.string().nullable(),
  base: z.string(),
  python_packages: z.array(z.string()),
  apt_packages: z.array(z.string()),
  npm_packages: z.array(z.string()),
  status: z.enum(imageStatuses),
  digest: z.string().nullable(),
  registry_ref: z.string().nullable(),
  failure_reason: z.string().nullable(),
  build_log_tail: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export function toImageOut(image: ImageRecord): z.input<typeof imageOut> {
  return {
    id: image.id,
    label: image.label,
    base: image.base,
    python_packages: image.pythonPackages,
    apt_packages: image.aptPackages,
    npm_packages: image.npmPackages,
    status: image.status,
    digest: image.digest,
    registry_ref: image.registryRef,
    failure_reason: image.failureReason,
    build_log_tail: image.buildLogTail,
    created_at: image.createdAt.toISOString(),
    completed_at: image.completedAt?.toISOString() ?? null,
  };
}
