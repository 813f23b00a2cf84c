/**
 * Secrets (CONTRACT.md §2.10): stored encrypted with SVC_SECRETS_KEY, bound to their account and
 * id; the value is write-only, never returned, never logged, and never placed in a sandbox.
 */
import { z } from "zod";
import { notFound, ServiceError } from "../../errors.ts";
import { checkAllowedHostSyntax, isUnsafeAddress } from "../../sandboxes/secrets.ts";
import { defineTool, requireAccount, type ToolContext } from "../../tool.ts";
import { resourceId } from "../resource-id.ts";
import { storableString } from "../text.ts";

const secretOut = z.object({
  id: z.string(),
  name: z.string(),
  allowed_hosts: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

async function checkHosts(context: ToolContext, hosts: string[]): Promise<string[]> {
  const normalised = hosts.map((host, index) => checkAllowedHostSyntax(host, index));
  if (context.platform.config.SVC_ALLOW_PRIVATE_EGRESS) return normalised;
  for (const host of normalised) {
    const literal = host.replace(/^\[|\]$/g, "");
    const addresses = /^[\d.]+$|:/.test(literal) ? [literal] : await context.platform.egress.resolve(host);
    if (addresses.some(isUnsafeAddress)) {
      throw new ServiceError(
        "unsafe_allowed_host",
        `${host} resolves to a private, loopback, link-local or metadata address`,
        { details: { host } },
      );
    }
  }
  return normalised;
}

export const createSecret = defineTool({
  name: "create_secret",
  group: "secrets",
  title: "Create a secret",
  description:
    "Store a secret for the HTTP broker. Its value is write-only: never returned, logged or put in a sandbox. Grant it to a sandbox with secret_names, then write {{secret:<name>}} in http_request to an allowed host.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    name: storableString()
      .min(1)
      .max(200)
      .describe("Unique name, used in secret_names and {{secret:<name>}}"),
    value: storableString().min(1).max(65_536).describe("The secret value; write-only"),
    allowed_hosts: z
      .array(z.string().max(253))
      .min(1)
      .max(50)
      .describe("Hostnames it may be sent to, e.g. api.github.com"),
  }),
  output: secretOut,
  auth: "api_key",
  bucket: "secret_ops",
  http: { method: "POST", path: "/v1/secrets", status: 201 },
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage, secretCipher, config } = context.platform;
    const allowedHosts = await checkHosts(context, input.allowed_hosts);
    const id = crypto.randomUUID();
    const record = {
      id,
      accountId,
      name: input.name,
      encryptedValue: await secretCipher.encrypt(input.value, `${accountId}/${id}`),
      allowedHosts,
      createdAt: context.now,
      lastUsedAt: null,
    };
    await storage.secrets.create(record, config.SVC_MAX_SECRETS_PER_ACCOUNT);
    context.logger.info({ secretId: id }, "secret created");
    return {
      id,
      name: record.name,
      allowed_hosts: allowedHosts,
      created_at: context.now.toISOString(),
      last_used_at: null,
    };
  },
});

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
  async handler(context, input) {
    if (!(await context.platform.storage.secrets.delete(requireAccount(context), input.secret_id))) {
      throw notFound("Secret not found");
    }
    return null;
  },
});
