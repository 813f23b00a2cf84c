import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { resourceId } from "../resource-id.ts";

export const deleteSecret = defineTool({
  name: "delete_secret",
  group: "secrets",
  title: "Delete a secret",
  description: "Delete a secret by id; sandboxes it was granted to can no longer use it.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ secret_id: resourceId.describe("Secret id, from list_secrets") }),
  output: z.null(),
  auth: "api_key",
  bucket: "secret_ops",
  http: { method: "DELETE", path: "/v1/secrets/:secret_id", status: 204 },
  uses: ["storage"],
  async handler(context, input) {
    if (!(await context.platform.storage.secrets.delete(requireAccount(context), input.secret_id))) {
      throw notFound("Secret not found");
    }
    return null;
  },
});
