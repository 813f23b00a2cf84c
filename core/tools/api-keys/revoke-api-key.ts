import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { resourceId } from "../resource-id.ts";

export const revokeApiKey = defineTool({
  name: "revoke_api_key",
  group: "api_keys",
  title: "Revoke an API key",
  description:
    "Revoke an API key by id; it stops working at once. An unknown or already revoked id is not_found.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ key_id: resourceId.describe("API key id, from list_api_keys or create_api_key") }),
  output: z.null(),
  auth: "dashboard",
  bucket: null,
  http: { method: "DELETE", path: "/v1/api-keys/:key_id", status: 204 },
  uses: ["storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage } = context.platform;
    // An OAuth grant's id revokes the grant: every access and refresh token of its family.
    const revoked =
      (await storage.apiKeys.revoke(accountId, input.key_id, context.now)) ||
      (await storage.oauth.revokeGrant(accountId, input.key_id, context.now));
    if (!revoked) throw notFound("API key not found");
    context.logger.info({ keyId: input.key_id }, "api key revoked");
    return null;
  },
});
