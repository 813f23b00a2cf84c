/**
 * The shell of every Cairn MCP server, whatever answers its tools: one tools/list and one
 * tools/call handler, and one wording of a failed call. The registry answers them in-process
 * (create-mcp-server.ts: /mcp and `cairn mcp serve --data-dir`); a server's /mcp answers them for
 * the stdio proxy (cli/mcp-proxy.ts). It imports only the SDK, so the CLI loads it without the
 * server.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  type ListToolsRequest,
  ListToolsRequestSchema,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { version } from "../../core/version.ts";

export const serverName = "cairn";

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What answers the server's tools. */
export interface ToolSource {
  instructions: string | undefined;
  list(params: ListToolsRequest["params"], extra: CallExtra): ListToolsResult | Promise<ListToolsResult>;
  /** A failure is an `isError` result (see `failedCall`); only an unknown tool throws (`unknownTool`). */
  call(params: CallToolRequest["params"], extra: CallExtra): Promise<CallToolResult>;
}

/**
 * tools/call with only its method checked, to register the handler with: the SDK's server then
 * checks the request itself and answers a malformed one (arguments that are not an object, no
 * name) with -32602 Invalid params. Registered with the full schema, the protocol layer parsed it
 * first and answered -32603 Internal error.
 */
const toolCallMethod = z.object({ method: z.literal("tools/call") }).passthrough();

export function createToolServer(source: ToolSource): Server {
  // `logging`: the SDK answers logging/setLevel and keeps each session's level. `completions`:
  // Cairn has no prompts or resource templates, so every completion is empty (clients that ask
  // get an answer, not -32601).
  const server = new Server(
    { name: serverName, version },
    {
      capabilities: { tools: { listChanged: false }, logging: {}, completions: {} },
      instructions: source.instructions,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => source.list(request.params, extra));
  server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values: [], hasMore: false } }));
  server.setRequestHandler(toolCallMethod, (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw); // checked by the SDK already
    return source.call(request.params, extra);
  });
  return server;
}

/** A failure as the REST error envelope carries it (with `retryable`, `remediation`, `details`?). */
export interface ErrorEnvelopeBody {
  code: string;
  message: string;
}

/**
 * A JSON-RPC error to throw from a handler: the SDK sends its `code` and `message` as they are (an
 * `McpError` would send its message with an "MCP error <code>: " prefix, which the client adds again).
 */
export const protocolError = (code: number, message: string) => Object.assign(new Error(message), { code });

/** An unknown tool name is a protocol error (-32602 Invalid params), not a failed call. */
export const unknownTool = (name: string) =>
  protocolError(
    ErrorCode.InvalidParams,
    `Unknown tool: ${name}; tools/list names the tools this server offers`,
  );

/** Who failed, as a failed call's text starts: `Memory error` for memory tools, `Error <tool>` otherwise. */
export const failureLabel = (tool: string, memory: boolean) => (memory ? "Memory error" : `Error ${tool}`);

/**
 * A failed call as the model sees it: the REST error envelope as structured content, and one
 * line of text, `<label>: <message><note> [<code>] (HTTP <status>)`.
 */
export function failedCall(
  label: string,
  error: ErrorEnvelopeBody,
  status: number,
  note = "",
): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${label}: ${error.message}${note} [${error.code}] (HTTP ${status})` }],
    structuredContent: { error },
  };
}
