/**
 * Outbound-MCP connections on a sandbox create (docs/sandboxes.md#mcp-connections): the labels
 * in `mcp_connection_names` become exactly their catalog hosts in the sandbox's egress, and an
 * unknown label refuses the create before anything exists.
 */
import { ServiceError } from "../../errors.ts";
import type { PlatformServices } from "../../platform-services.ts";

export interface ResolvedConnections {
  /** The labels, each once, in the order given. */
  labels: string[];
  /** Their hosts, each once, sorted. */
  egressHosts: string[];
}

export async function resolveMcpConnections(
  platform: Pick<PlatformServices, "storage">,
  accountId: string,
  requested: string[] | null,
): Promise<ResolvedConnections> {
  const labels = [...new Set(requested ?? [])];
  if (labels.length === 0) return { labels: [], egressHosts: [] };
  const connections = await platform.storage.mcpConnections.findByLabels(accountId, labels);
  const found = new Map(connections.map((connection) => [connection.label, connection.host]));
  const missing = labels.find((label) => !found.has(label));
  if (missing !== undefined) {
    throw new ServiceError("mcp_connection_not_found", `MCP connection ${JSON.stringify(missing)} not found`);
  }
  return { labels, egressHosts: [...new Set(found.values())].sort() };
}
