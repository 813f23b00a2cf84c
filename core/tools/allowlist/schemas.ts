/**
 * The account's command allowlist (docs/api.md#command-allowlist). REST only: an agent over MCP cannot widen
 * its own allowlist, so none of its operations has an MCP binding.
 */
import { z } from "zod";

export const rule = z.union([
  z.string(),
  z.object({ command: z.string(), args_allow: z.array(z.string()), args_deny: z.array(z.string()) }),
]);
export const rulesOut = z.object({ rules: z.array(rule) });
