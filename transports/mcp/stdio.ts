/**
 * MCP over stdio: a server (tool-server.ts) on this process's stdin and stdout, for both modes of
 * `cairn mcp serve`. stdout carries MCP messages and nothing else; anything to say goes to stderr,
 * which an MCP client shows as the server's log.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * The longest line read from the MCP client. The SDK's 10 MiB default is less than a tool's
 * arguments may be (10 Mi characters of file content): past it the transport closes and the
 * process ends. Anything up to this reaches the tool, whose own limits answer for themselves.
 */
const maxMessageBytes = 64 * 1024 * 1024;

/**
 * Serves `server` on stdio; resolves once it is connected. `onClose` runs once when the client
 * goes: it closed stdin (the SDK's transport does not notice that by itself), or the transport failed.
 */
export async function serveOverStdio(server: Server, onClose: () => void): Promise<void> {
  const transport = new StdioServerTransport(process.stdin, process.stdout, {
    maxBufferSize: maxMessageBytes,
  });
  let closed = false;
  transport.onclose = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  server.onerror = (error) => process.stderr.write(`cairn mcp serve: ${error.message}\n`);
  process.stdin.once("end", () => void transport.close());
  await server.connect(transport);
}
