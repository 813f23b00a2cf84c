import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { apiKeyOut, oauthGrantOut, toApiKeyOut } from "./schemas.ts";

export const listApiKeys = defineTool({
  name: "list_api_keys",
  group: "api_keys",
  title: "List API keys",
  description:
    "List the account's API keys, newest first, revoked ones included, with prefix and last use. Raw keys are never shown; pass an id to revoke_api_key.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.array(apiKeyOut),
  auth: "dashboard",
  bucket: null,
  http: { method: "GET", path: "/v1/api-keys", status: 200 },
  uses: ["storage"],
  async handler(context) {
    const accountId = requireAccount(context);
    const { storage } = context.platform;
    const [keys, grants] = await Promise.all([
      storage.apiKeys.list(accountId),
      storage.oauth.listGrants(accountId),
    ]);
    // OAuth connectors' grants are listed (and revoked) beside the keys: prefix "oauth".
    return [...keys.map(toApiKeyOut), ...grants.map(oauthGrantOut)].sort(
      (a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
    );
  },
});
