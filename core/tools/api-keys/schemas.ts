import { z } from "zod";
import type { OAuthGrantRecord } from "../../ports/oauth-storage.ts";
import { type ApiKeyRecord, apiKeyRoles } from "../../ports/storage.ts";

export const apiKeyOut = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  role: z.enum(apiKeyRoles),
});

export function toApiKeyOut(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    created_at: record.createdAt.toISOString(),
    revoked_at: record.revokedAt?.toISOString() ?? null,
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
    role: record.role,
  };
}

/** An OAuth connector's grant as the key list shows it: its client's name, prefix "oauth". */
export function oauthGrantOut(grant: OAuthGrantRecord) {
  return {
    id: grant.id,
    name: `${grant.clientName} (OAuth)`.slice(0, 200),
    prefix: "oauth",
    created_at: grant.createdAt.toISOString(),
    revoked_at: grant.revokedAt?.toISOString() ?? null,
    last_used_at: grant.lastUsedAt?.toISOString() ?? null,
    role: "admin" as const,
  };
}
