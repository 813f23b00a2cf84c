import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import type { ImageRecord } from "../../ports/storage.ts";
import {
  imageBases,
  offeredBases,
  type PackageKind,
  packageName,
  specHash,
} from "../../sandboxes/images/images.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { storableString } from "../text.ts";
import { imagesEnabled, packageList } from "./schemas.ts";

const reuseWindowMs = 24 * 60 * 60 * 1000;

const fields: Array<[PackageKind, "python_packages" | "apt_packages" | "npm_packages"]> = [
  ["python", "python_packages"],
  ["apt", "apt_packages"],
  ["npm", "npm_packages"],
];

/**
 * The counterpart's base names that a Cairn base covers (its default base installs Python, apt and
 * npm packages, Node included); its Go, Rust and Next.js bases have no Cairn equivalent.
 */
const counterpartBases: Readonly<Record<string, string>> = {
  "boxxkite-default": "default",
  "boxxkite-node": "default",
};

const invalid = (loc: Array<string | number>, type: string, msg: string) =>
  new ServiceError("validation_error", "Invalid request", {
    details: [{ type, loc: loc.map(String), msg }],
  });

export const createImage = defineTool({
  name: "create_sandbox_image",
  group: "images",
  title: "Build a custom image",
  description:
    "Build an image from a base and packages pinned as name==version (requests==2.32.3, jq==1.6-2.1, @scope/name==1.2.3) in the background; once get_sandbox_image says completed, pass its id as create_sandbox's image_id.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  input: z.object({
    label: storableString().max(200).nullable().default(null).describe("Name shown in listings"),
    base: z
      .string()
      .max(64)
      .default("default")
      .describe('"default" (Python, apt and npm packages) or "minimal" (apt only)'),
    python_packages: packageList("python"),
    apt_packages: packageList("apt"),
    npm_packages: packageList("npm"),
  }),
  output: z.object({
    id: z.string(),
    label: z.string().nullable(),
    status: z.enum(["queued", "completed"]),
    created_at: z.string(),
  }),
  auth: "api_key",
  bucket: "image_build_ops",
  http: { method: "POST", path: "/v1/images", status: 202 },
  // The description shows the name==version form the package fields take.
  mcp: { saidByTool: ["label", "python_packages", "apt_packages", "npm_packages"] },
  enabled: imagesEnabled,
  uses: ["config", "imageBuilds", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage, config, imageBuilds } = context.platform;
    const bases = offeredBases(config);
    const base = counterpartBases[input.base] ?? input.base;
    if (!bases.includes(base)) {
      const aliases = Object.entries(counterpartBases)
        .filter(([, cairnBase]) => bases.includes(cairnBase))
        .map(([name, cairnBase]) => `${name} is ${cairnBase}`);
      throw invalid(
        ["base"],
        "unknown_base",
        `Must be one of the offered bases: ${bases.join(", ")}${aliases.length > 0 ? ` (${aliases.join(", ")})` : ""}`,
      );
    }
    const supported = imageBases[base]?.kinds ?? [];
    for (const [kind, field] of fields) {
      const entries = input[field];
      if (entries.length > 0 && !supported.includes(kind)) {
        throw invalid(
          [field],
          "unsupported_package_kind",
          `The ${base} base cannot install ${kind} packages`,
        );
      }
      const seen = new Set<string>();
      for (const [index, entry] of entries.entries()) {
        const name = packageName(entry).toLowerCase();
        if (seen.has(name))
          throw invalid([field, index], "duplicate_package", "Names a package listed before it");
        seen.add(name);
      }
    }
    const spec = {
      base,
      pythonPackages: input.python_packages,
      aptPackages: input.apt_packages,
      npmPackages: input.npm_packages,
    };
    const hash = await specHash(spec);
    const since = new Date(context.now.getTime() - reuseWindowMs);
    const reusable = await storage.images.findReusable(accountId, hash, since);
    const status = reusable ? ("completed" as const) : ("queued" as const);
    const image: ImageRecord = {
      id: crypto.randomUUID(),
      accountId,
      label: input.label,
      ...spec,
      specHash: hash,
      status,
      digest: reusable?.digest ?? null,
      registryRef: reusable?.registryRef ?? null,
      layerPath: reusable?.layerPath ?? null,
      failureReason: null,
      buildLogTail: reusable
        ? `Reused the build of image ${reusable.id} (same spec within 24 hours)\n`
        : null,
      createdAt: context.now,
      // When its build finished: a reuse does not extend the 24 hours of the build it reuses.
      completedAt: reusable?.completedAt ?? null,
    };
    await storage.images.create(image, {
      perAccount: config.SVC_MAX_IMAGES_PER_ACCOUNT,
      globalInFlight: config.SVC_GLOBAL_MAX_IMAGE_BUILDS,
    });
    if (status === "queued") imageBuilds.enqueue(image.id);
    context.logger.info({ imageId: image.id, reused: reusable?.id ?? null }, "image created");
    return {
      id: image.id,
      label: image.label,
      status,
      created_at: context.now.toISOString(),
    };
  },
});
