/**
 * `cairn mcp serve` with a server: an MCP server on stdio that forwards every request to a Cairn
 * server's /mcp. It lists exactly the tools the server lists and calls them there, so the stdio
 * and HTTP transports cannot drift apart; the MCP shell (tool-server.ts) and the stdio transport
 * are those of the in-process mode. Nothing throws into the MCP client: a failed or unreachable
 * upstream call comes back as an `isError` result. A stdio client keeps this process for days,
 * so when the server has ended the upstream session (a restart, an hour idle, the account's
 * oldest of too many) the next call opens a new one and is sent again.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  McpError,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { version } from "../core/version.ts";
import type { ResultMode } from "../transports/mcp/profiles.ts";
import { serveOverStdio } from "../transports/mcp/stdio.ts";
import { createToolServer, failedCall, protocolError } from "../transports/mcp/tool-server.ts";
import { refusalIn } from "./mcp-refusal.ts";

export interface McpProxyOptions {
  baseUrl: string;
  apiKey: string;
  tools: string;
  /** How results reach this proxy's client; unset, by the protocol version it negotiates. */
  results?: ResultMode;
}

interface Upstream {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function openUpstream(options: McpProxyOptions): Promise<Upstream> {
  const endpoint = new URL(`${options.baseUrl}/mcp`);
  endpoint.searchParams.set("tools", options.tools);
  // Structured alone from the server, with the output schemas: the shell (tool-server.ts) writes
  // the text block again for a client served text, so no result crosses the network twice.
  endpoint.searchParams.set("results", "structured");
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { Authorization: `Bearer ${options.apiKey}` } },
  });
  const client = new Client({ name: "cairn-mcp-serve", version });
  await client.connect(transport);
  return { client, transport };
}

/** The server no longer knows the session: 404 on a request that carried its id. */
const sessionEnded = (error: unknown) => error instanceof StreamableHTTPError && error.code === 404;

/**
 * An upstream refusal as the server words a failed call (mcp-refusal.ts reads it), or a network error.
 */
function upstreamFailure(name: string, error: unknown): CallToolResult {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    const refusal = refusalIn(reason);
    if (refusal !== null) return failedCall(`Error ${name}`, refusal, error.code);
  }
  return { isError: true, content: [{ type: "text", text: `Error ${name}: Network error: ${reason}` }] };
}

/** Connects upstream first, so a wrong key or an unreachable server fails at start with a clear line. */
export async function serveMcpProxy(options: McpProxyOptions): Promise<void> {
  const first = await openUpstream(options);
  let upstream: Promise<Upstream> = Promise.resolve(first);

  /** A new session in place of `ended`, shared by the calls that met the same ended session. */
  function reconnect(ended: Promise<Upstream>): Promise<Upstream> {
    if (upstream !== ended) return upstream;
    const next = openUpstream(options);
    upstream = next;
    next.then(
      () => void ended.then(({ client }) => client.close()).catch(() => {}),
      // Unreachable for now: the next call meets the ended session again and tries once more.
      () => {
        if (upstream === next) upstream = ended;
      },
    );
    return next;
  }

  /** Runs `work` on the upstream session, once more on a new one when the server ended it. */
  async function upstreamCall<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const current = upstream;
    try {
      return await work((await current).client);
    } catch (error) {
      if (!sessionEnded(error)) throw error;
      return work((await reconnect(current)).client);
    }
  }

  const server = createToolServer(
    {
      instructions: first.client.getInstructions(),
      list: (params, extra) => upstreamCall((client) => client.listTools(params, { signal: extra.signal })),
      async call(params, extra) {
        // A call with a progressToken: the server's progress is passed on under the client's token
        // (the SDK asks upstream with a token of its own), in order, and all of it before the
        // result (sending a notification takes turns, so one started last could follow the
        // answer); a streamed exec may run an hour.
        const progressToken = params._meta?.progressToken;
        let progressSent = Promise.resolve();
        const onprogress =
          progressToken === undefined
            ? undefined
            : (progress: Progress) => {
                progressSent = progressSent
                  .then(() =>
                    extra.sendNotification({
                      method: "notifications/progress",
                      params: { ...progress, progressToken },
                    }),
                  )
                  .catch(() => {});
              };
        try {
          const result = await upstreamCall((client) =>
            client.request({ method: "tools/call", params }, CallToolResultSchema, {
              signal: extra.signal,
              // Long commands run up to 100 s on the server (3600 s streamed); the SDK's 60 s default would cut them off.
              timeout: progressToken === undefined ? 300_000 : 3_700_000,
              onprogress,
            }),
          );
          await progressSent;
          return result;
        } catch (error) {
          // A protocol error upstream (an unknown tool: -32602) is the client's, as the server sent it.
          if (error instanceof McpError)
            throw protocolError(error.code, error.message.replace(/^MCP error -?\d+: /, ""));
          return upstreamFailure(params.name, error);
        }
      },
    },
    { results: options.results },
  );
  // The client closed stdin: the upstream session ends (bounded, the server may be gone), then the process.
  await serveOverStdio(server, () => {
    const ended = upstream
      .then(({ client, transport }) => transport.terminateSession().finally(() => client.close()))
      .catch(() => {});
    void Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]).then(() =>
      process.exit(0),
    );
  });
}
