import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { imageIdParameter, imageOut, imagesEnabled, toImageOut } from "./schemas.ts";

export const getImage = defineTool({
  name: "get_sandbox_image",
  group: "images",
  title: "Get a custom image",
  description: "Get one custom image: status, and if it failed why, with the build log's end.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ image_id: imageIdParameter }),
  output: imageOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/images/:image_id", status: 200 },
  mcp: {},
  enabled: imagesEnabled,
  uses: ["storage"],
  async handler(context, input) {
    const image = await context.platform.storage.images.get(requireAccount(context), input.image_id);
    if (!image) throw notFound("Image not found");
    return toImageOut(image);
  },
});
