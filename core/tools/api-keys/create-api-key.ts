import { z } from "zod";
import { generateApiKey, sha256Hex } from "../../auth/api-keys.ts";
import { apiKeyRoles } from "../../ports/storage.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { apiKeyOut, toApiKeyOut } from "./schemas.ts";

export const createApiKey = defineTool({
  name: "create_api_key",
  group: "api_keys",
  title: "Create an API key",
  description:
    "Create an API key for the account. The raw key is in this response only (only its SHA-256 digest is kept), so store it; send it as the Bearer credential of every API-key route.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    name: z.string().min(1).max(200).describe('Label to tell keys apart, e.g. "ci" or "laptop"'),
    role: z
      .enum(apiKeyRoles)
      .default("admin")
      .describe("admin, or member: cannot delete snapshots or mint takeover tokens"),
  }),
  output: apiKeyOut.extend({ key: z.string() }),
  auth: "dashboard",
  bucket: null,
  http: { method: "POST", path: "/v1/api-keys", status: 201 },
  uses: ["storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { key, prefix } = generateApiKey();
    const record = await context.platform.storage.apiKeys.create({
      accountId,
      name: input.name,
      prefix,
      keyHash: await sha256Hex(key),
      now: context.now,
      role: input.role,
    });
    context.logger.info({ keyId: record.id, role: record.role }, "api key created");
    return { ...toApiKeyOut(record), key };
  },
});
