/**
 * A live Cairn server (the real Node entry in a child process) and MCP clients from the SDK
 * against it: over HTTP at /mcp, and over stdio through a spawned `cairn mcp serve`. Also
 * `cairn mcp serve --data-dir`, which needs no server.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type LiveAccount, type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

export const root = join(import.meta.dirname, "../..");
export const cliEntry = join(root, "cli/cairn.ts");

/** The 31 tool names Cairn documents (docs/mcp.md), all built. A listed tool outside them is a defect. */
export const contractToolNames = [
  "create_sandbox",
  "destroy_sandbox",
  "get_sandbox",
  "list_sandboxes",
  "create_sandbox_image",
  "get_sandbox_image",
  "list_sandbox_images",
  "delete_sandbox_image",
  "create_sandbox_volume",
  "get_sandbox_volume",
  "list_sandbox_volumes",
  "delete_sandbox_volume",
  "create_mcp_connection",
  "list_mcp_connections",
  "delete_mcp_connection",
  "exec",
  "lsp_start",
  "lsp_open",
  "lsp_completion",
  "lsp_stop",
  "file_create",
  "view",
  "str_replace",
  "ls",
  "glob",
  "grep",
  "remember",
  "ingest_memory",
  "recall",
  "memory_profile",
  "forget_memory",
] as const;

/**
 * The background-process tools (docs/mcp.md, issue 41), beyond the 31 core ones, in the `sandbox`
 * profile; the 31 stay as they are.
 */
export const processToolNames = [
  "process_start",
  "process_list",
  "process_output",
  "process_input",
  "process_stop",
  "process_wait",
] as const;

/** Issue 43's snapshot and activity tools (docs/sandboxes.md#snapshots, #activity). */
export const snapshotAndActivityToolNames = ["create_snapshot", "restore_snapshot", "sandbox_log"] as const;

/** Issue 43's preview tools (docs/sandboxes.md#previews); the terminal has none. */
export const previewToolNames = ["create_preview", "revoke_preview"] as const;

/** The tools built: the 31 core ones, the background-process tools, and the snapshot and activity ones. */
export const builtToolNames: readonly string[] = [
  ...contractToolNames,
  ...processToolNames,
  ...snapshotAndActivityToolNames,
  ...previewToolNames,
];

export const memoryToolNames = ["remember", "ingest_memory", "recall", "memory_profile", "forget_memory"];

export interface LiveServer extends RunningServer {
  dataDir: string;
  close(): Promise<void>;
}

export async function startLiveServer(environment: Record<string, string> = {}): Promise<LiveServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-mcp-"));
  const server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "warn",
    ...environment,
  });
  return {
    ...server,
    dataDir,
    async close() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestAccount = LiveAccount;

/** Signs up over REST and creates an API key, as a user would. */
export const createAccount = (baseUrl: string): Promise<TestAccount> =>
  signUpWithKey(baseUrl, `mcp-${crypto.randomUUID()}@example.com`);

export function httpTransport(baseUrl: string, key: string, tools?: string) {
  const url = new URL(`${baseUrl}/mcp`);
  if (tools) url.searchParams.set("tools", tools);
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
}

export async function connectHttp(baseUrl: string, key: string, tools?: string): Promise<Client> {
  const client = new Client({ name: "cairn-test", version: "1.0.0" });
  await client.connect(httpTransport(baseUrl, key, tools));
  return client;
}

export async function connectStdio(baseUrl: string, key: string, tools?: string): Promise<Client> {
  const client = new Client({ name: "cairn-test-stdio", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliEntry, "mcp", "serve", ...(tools ? ["--tools", tools] : [])],
      env: { PATH: process.env.PATH ?? "", CAIRN_BASE_URL: baseUrl, CAIRN_API_KEY: key },
      stderr: "pipe",
    }),
  );
  return client;
}

export interface DataDirClient {
  client: Client;
  /** What the process wrote on stderr so far (its logs). */
  stderr(): string;
}

/** `cairn mcp serve --data-dir DIR` spawned by the SDK's stdio client: the registry in that process. */
export async function connectDataDir(dataDir: string, tools?: string): Promise<DataDirClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliEntry, "mcp", "serve", "--data-dir", dataDir, ...(tools ? ["--tools", tools] : [])],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  let stderr = "";
  // Drained, so the child never waits on a full pipe.
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: "cairn-test-data-dir", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export const transports = [
  { name: "HTTP", connect: connectHttp },
  { name: "stdio", connect: connectStdio },
] as const;

/** The structured result of a successful call, or a failure naming the call. */
export function structured<T = Record<string, unknown>>(result: unknown, call = "tool call"): T {
  const value = result as {
    isError?: boolean;
    structuredContent?: unknown;
    content?: Array<{ text?: string }>;
  };
  if (value.isError) throw new Error(`${call} failed: ${value.content?.[0]?.text}`);
  // The text content is the same JSON.
  const text = value.content?.[0]?.text ?? "";
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(value.structuredContent)) {
    throw new Error(`${call}: text and structured content differ`);
  }
  return value.structuredContent as T;
}

type JsonRpcAnswer = { error?: { code: number }; result?: Record<string, unknown> };

/**
 * A raw JSON-RPC session over a child's stdio, one message a line (what `cairn mcp serve`
 * speaks): `send` writes a message, `answer(id)` resolves when the answer with that id arrives.
 */
export function jsonRpcLines(child: {
  stdin: { write(text: string): unknown };
  stdout: { on(event: "data", listener: (chunk: Buffer | string) => void): unknown };
}) {
  const answers = new Map<number, JsonRpcAnswer>();
  const waiting = new Map<number, (answer: JsonRpcAnswer) => void>();
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    // Whole lines only: a chunk may end inside a message.
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line);
      if (typeof message.id !== "number") continue;
      answers.set(message.id, message);
      waiting.get(message.id)?.(message);
    }
  });
  return {
    send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`),
    answer: (id: number): Promise<JsonRpcAnswer> =>
      new Promise((resolve) => {
        const known = answers.get(id);
        if (known) resolve(known);
        else waiting.set(id, resolve);
      }),
  };
}
