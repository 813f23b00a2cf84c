import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { resourceId } from "../resource-id.ts";

export const deleteMcpConnection = defineTool({
  name: "delete_mcp_connection",
  group: "mcp_connections",
  title: "Delete an MCP connection",
  description: "Delete an MCP connection; sandboxes created with it keep reaching its host.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({ connection_id: resourceId.describe("Connection id, from list_mcp_connections") }),
  output: z.null(),
  auth: "api_key",
  bucket: "mcp_connection_ops",
  http: { method: "DELETE", path: "/v1/mcp-connections/:connection_id", status: 204 },
  mcp: { done: { status: "deleted", idField: "connection_id" } },
  uses: ["storage"],
  async handler(context, input) {
    const deleted = await context.platform.storage.mcpConnections.delete(
      requireAccount(context),
      input.connection_id,
    );
    if (!deleted) throw notFound("MCP connection not found");
    return null;
  },
});
