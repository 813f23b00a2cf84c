import { z } from "zod";
import type { ApiKeyRecord } from "../../ports/storage.ts";

export const apiKeyOut = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

export function toApiKeyOut(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    created_at: record.createdAt.toISOString(),
    revoked_at: record.revokedAt?.toISOString() ?? null,
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}
