import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { imageOut, imagesEnabled, toImageOut } from "./schemas.ts";

export const listImages = defineTool({
  name: "list_sandbox_images",
  group: "images",
  title: "List custom images",
  description: "List the account's custom images, newest first, with status and packages.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.array(imageOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/images", status: 200 },
  mcp: {},
  enabled: imagesEnabled,
  uses: ["storage"],
  async handler(context) {
    return (await context.platform.storage.images.list(requireAccount(context))).map(toImageOut);
  },
});
