import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { secretOut } from "./schemas.ts";

export const listSecrets = defineTool({
  name: "list_secrets",
  group: "secrets",
  title: "List secrets",
  description: "List the account's secrets: id, name, allowed hosts and last use; never values.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.array(secretOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/secrets", status: 200 },
  uses: ["storage"],
  async handler(context) {
    const secrets = await context.platform.storage.secrets.list(requireAccount(context));
    return secrets.map((secret) => ({
      id: secret.id,
      name: secret.name,
      allowed_hosts: secret.allowedHosts,
      created_at: secret.createdAt.toISOString(),
      last_used_at: secret.lastUsedAt?.toISOString() ?? null,
    }));
  },
});
