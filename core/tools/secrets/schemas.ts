/**
 * Secrets (docs/api.md#secrets): stored encrypted with SVC_SECRETS_KEY, bound to their account and
 * id; the value is write-only, never returned, never logged, and never placed in a sandbox.
 */
import { z } from "zod";

export const secretOut = z.object({
  id: z.string(),
  name: z.string(),
  allowed_hosts: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
