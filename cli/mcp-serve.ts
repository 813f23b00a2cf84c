/**
 * `cairn mcp serve`: an MCP server on stdio that forwards every request to a Cairn server's /mcp.
 * It lists exactly the tools the server lists and calls them there, so the stdio and HTTP
 * transports cannot drift apart. Nothing throws into the MCP client: a failed or unreachable
 * upstream call comes back as an `isError` result.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { version } from "../core/version.ts";

export interface McpServeOptions {
  baseUrl: string;
  apiKey: string;
  tools: string;
}

function unreachable(name: string, error: unknown): CallToolResult {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: "text", text: `Error ${name}: Network error: ${reason}` }],
  };
}

/** Connects upstream first, so a wrong key or an unreachable server fails at start with a clear line. */
export async function serveMcpOverStdio(options: McpServeOptions): Promise<void> {
  const endpoint = new URL(`${options.baseUrl}/mcp`);
  endpoint.searchParams.set("tools", options.tools);
  const upstreamTransport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { Authorization: `Bearer ${options.apiKey}` } },
  });
  const upstream = new Client({ name: "cairn-mcp-serve", version });
  await upstream.connect(upstreamTransport);

  const server = new Server(
    { name: "cairn", version },
    { capabilities: { tools: { listChanged: false } }, instructions: upstream.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
    upstream.listTools(request.params, { signal: extra.signal }),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      return await upstream.request({ method: "tools/call", params: request.params }, CallToolResultSchema, {
        signal: extra.signal,
        // Long commands run up to 100 s on the server; the SDK's 60 s default would cut them off.
        timeout: 300_000,
      });
    } catch (error) {
      return unreachable(request.params.name, error);
    }
  });
  const stdio = new StdioServerTransport();
  stdio.onclose = () => {
    void upstreamTransport.terminateSession().finally(() => upstream.close());
  };
  await server.connect(stdio);
}
