import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { checkAllowedHostSyntax, isUnsafeAddress } from "../../sandboxes/broker/secrets.ts";
import { defineTool, requireAccount, type ToolContext } from "../../tool.ts";
import { storableString } from "../text.ts";
import { secretOut } from "./schemas.ts";

/** The hosts normalised; one resolving to a private or metadata address is refused unless private egress is allowed. */
async function checkHosts(context: ToolContext<"config" | "egress">, hosts: string[]): Promise<string[]> {
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
  uses: ["config", "egress", "secretCipher", "storage"],
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
