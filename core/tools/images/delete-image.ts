import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { imageIdParameter, imagesEnabled } from "./schemas.ts";

export const deleteImage = defineTool({
  name: "delete_sandbox_image",
  group: "images",
  title: "Delete a custom image",
  description: "Delete a custom image; sandboxes started from it keep running.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ image_id: imageIdParameter }),
  output: z.null(),
  auth: "api_key",
  bucket: "image_build_ops",
  http: { method: "DELETE", path: "/v1/images/:image_id", status: 204 },
  mcp: { done: { status: "deleted", idField: "image_id" } },
  enabled: imagesEnabled,
  uses: ["imageBuilds", "storage"],
  async handler(context, input) {
    // Only the record goes: a layer is content-addressed and may be shared by a reused build or
    // be under a live sandbox, so it stays where sandboxes read it (docs/sandboxes.md#images).
    const deleted = await context.platform.storage.images.delete(requireAccount(context), input.image_id);
    if (!deleted) throw notFound("Image not found");
    context.platform.imageBuilds.cancel(input.image_id);
    context.logger.info({ imageId: input.image_id }, "image deleted");
    return null;
  },
});
