/**
 * Outbound-MCP connections (docs/api.md#mcp-connections): a named per-account grant of one
 * catalog host. Listed in a sandbox's mcp_connection_names, it widens that sandbox's egress to
 * the host; nothing is proxied and no credential is stored.
 */
import { z } from "zod";
import type { McpConnectionRecord } from "../../ports/storage.ts";

export const mcpConnectionOut = z.object({
  id: z.string(),
  label: z.string(),
  catalog_id: z.string(),
  host: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

export function toMcpConnectionOut(connection: McpConnectionRecord): z.input<typeof mcpConnectionOut> {
  return {
    id: connection.id,
    label: connection.label,
    catalog_id: connection.catalogId,
    host: connection.host,
    created_at: connection.createdAt.toISOString(),
    last_used_at: connection.lastUsedAt?.toISOString() ?? null,
  };
}
