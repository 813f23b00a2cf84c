import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { mcpConnectionOut, toMcpConnectionOut } from "./schemas.ts";

export const listMcpConnections = defineTool({
  name: "list_mcp_connections",
  group: "mcp_connections",
  title: "List MCP connections",
  description: "List the account's MCP connections: label, catalog entry, host and last use.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.array(mcpConnectionOut),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/mcp-connections", status: 200 },
  mcp: {},
  uses: ["storage"],
  async handler(context) {
    const connections = await context.platform.storage.mcpConnections.list(requireAccount(context));
    return connections.map(toMcpConnectionOut);
  },
});
