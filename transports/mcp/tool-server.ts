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
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  type ListToolsRequest,
  ListToolsRequestSchema,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { version } from "../../core/version.ts";
import type { ResultMode } from "./profiles.ts";

export const serverName = "cairn";

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * What answers the server's tools: every tool with its `outputSchema`, every successful result
 * with its `structuredContent` (its text block may be left out); the shell shapes both to the
 * connection's result mode (profiles.ts).
 */
export interface ToolSource {
  instructions: string | undefined;
  list(params: ListToolsRequest["params"], extra: CallExtra): ListToolsResult | Promise<ListToolsResult>;
  /** A failure is an `isError` result (see `failedCall`); only an unknown tool throws (`unknownTool`). */
  call(params: CallToolRequest["params"], extra: CallExtra): Promise<CallToolResult>;
}

export interface ToolServerOptions {
  /** The connection's result mode; unset, it follows the protocol version the client negotiated. */
  results?: ResultMode;
}

/** `structuredContent` arrived in MCP 2025-06-18 (versions are dates, so they sort as text). */
const structuredSince = "2025-06-18";

/** A client that named an older protocol cannot read structured results; one that named none is served both. */
function modeForVersion(protocolVersion: string | undefined): ResultMode {
  return protocolVersion !== undefined && protocolVersion < structuredSince ? "text" : "both";
}

/**
 * The tools as a mode lists them: their output schemas and display titles only where results are
 * structured alone (a client building on them); the others get what a model reads.
 */
function listedFor(result: ListToolsResult, mode: ResultMode): ListToolsResult {
  if (mode === "structured") return result;
  return { ...result, tools: result.tools.map(({ outputSchema: _outline, title: _title, ...tool }) => tool) };
}

/**
 * A successful result as a mode carries it: the JSON once as text, once as structured content, or
 * both. A failure keeps its text line and its error object in every mode (clients show the text).
 */
function resultFor(result: CallToolResult, mode: ResultMode): CallToolResult {
  if (result.isError || result.structuredContent === undefined) return result;
  if (mode === "structured") return { ...result, content: [] };
  const content: CallToolResult["content"] =
    result.content.length > 0
      ? result.content
      : [{ type: "text", text: JSON.stringify(result.structuredContent) }];
  if (mode === "both") return { ...result, content };
  const { structuredContent: _structured, ...text } = result;
  return { ...text, content };
}

/**
 * Keeps the protocol version the client asks for at `initialize` (stdio has no header saying it),
 * answering as the SDK does. Its answer is private to the SDK's server, so this is a cast, checked.
 */
function rememberInitializedVersion(server: Server, remember: (version: string) => void): void {
  const sdk = server as unknown as {
    _oninitialize?: (request: InitializeRequest) => Promise<InitializeResult>;
  };
  const initialize = sdk._oninitialize?.bind(server);
  if (!initialize) return;
  server.setRequestHandler(InitializeRequestSchema, (request) => {
    remember(request.params.protocolVersion);
    return initialize(request);
  });
}

/**
 * tools/call with only its method checked, to register the handler with: the SDK's server then
 * checks the request itself and answers a malformed one (arguments that are not an object, no
 * name) with -32602 Invalid params. Registered with the full schema, the protocol layer parsed it
 * first and answered -32603 Internal error.
 */
const toolCallMethod = z.object({ method: z.literal("tools/call") }).passthrough();

export function createToolServer(source: ToolSource, options: ToolServerOptions = {}): Server {
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
  let initializedVersion: string | undefined;
  rememberInitializedVersion(server, (protocolVersion) => {
    initializedVersion = protocolVersion;
  });
  // Over HTTP every request names its version (a stateless one has no initialize); stdio names it once.
  const modeOf = (extra: CallExtra): ResultMode => {
    if (options.results) return options.results;
    const header = extra.requestInfo?.headers["mcp-protocol-version"];
    return modeForVersion(typeof header === "string" ? header : initializedVersion);
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) =>
    listedFor(await source.list(request.params, extra), modeOf(extra)),
  );
  server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values: [], hasMore: false } }));
  server.setRequestHandler(toolCallMethod, async (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw); // checked by the SDK already
    return resultFor(await source.call(request.params, extra), modeOf(extra));
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
