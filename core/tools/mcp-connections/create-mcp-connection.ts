import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { storableString } from "../text.ts";
import { mcpConnectionOut, toMcpConnectionOut } from "./schemas.ts";

export const createMcpConnection = defineTool({
  name: "create_mcp_connection",
  group: "mcp_connections",
  title: "Create an MCP connection",
  description:
    "Grant the account a catalog MCP server under a label; sandboxes created with the label in mcp_connection_names may reach its host.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    label: storableString().min(1).max(200).describe("Unique; named in mcp_connection_names"),
    catalog_id: z.string().min(1).max(64).describe("e.g. github, slack, notion or linear"),
  }),
  output: mcpConnectionOut,
  auth: "api_key",
  bucket: "mcp_connection_ops",
  http: { method: "POST", path: "/v1/mcp-connections", status: 201 },
  mcp: { saidByTool: ["label"] },
  uses: ["config", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { storage, config } = context.platform;
    const catalog = config.SVC_MCP_CATALOG;
    if (!Object.hasOwn(catalog, input.catalog_id)) {
      throw new ServiceError("validation_error", "Invalid request", {
        details: [
          {
            type: "invalid_value",
            loc: ["catalog_id"],
            msg: `Must be one of: ${Object.keys(catalog).join(", ")}`,
          },
        ],
      });
    }
    const record = {
      id: crypto.randomUUID(),
      accountId,
      label: input.label,
      catalogId: input.catalog_id,
      host: catalog[input.catalog_id],
      createdAt: context.now,
      lastUsedAt: null,
    };
    await storage.mcpConnections.create(record, config.SVC_MAX_MCP_CONNECTIONS_PER_ACCOUNT);
    context.logger.info({ connectionId: record.id, catalogId: record.catalogId }, "MCP connection created");
    return toMcpConnectionOut(record);
  },
});
