/**
 * One language server as Cairn drives it: `initialize` for /workspace, full-document sync, and
 * completion, over a process the runtime started inside the sandbox
 * (docs/sandboxes.md#language-servers).
 */
import type { SandboxProcess } from "../../ports/sandbox-runtime.ts";
import { createJsonRpcConnection, type JsonRpcConnection } from "./json-rpc-connection.ts";

/** A running process with piped stdio, as `SandboxRuntime.spawnProcess` returns it. */
export type LanguageServerProcess = SandboxProcess;

export interface LanguageClientOptions {
  /** `languageId` of an opened document, from its path. */
  languageIdOf(path: string): string;
  requestTimeoutMs: number;
  /** How long `initialize` may take (a server's first start reads its whole standard library). */
  initializeTimeoutMs: number;
  /** How long a stopping server has between `exit` and being killed. */
  shutdownGraceMs: number;
}

export interface LanguageClient {
  /** Sends the whole document: didOpen the first time, didChange with the full text after. */
  open(path: string, content: string): Promise<void>;
  /** The text last sent for a document, or undefined if it was never opened. */
  documentText(path: string): string | undefined;
  /** The raw completion items at a 0-indexed position of an opened document. */
  completion(path: string, line: number, character: number): Promise<unknown[]>;
  /** shutdown + exit, then a kill if the process has not ended within the grace period. */
  stop(): Promise<void>;
  /** Kills the process at once (its sandbox is going away). */
  kill(): void;
  readonly exited: Promise<number | null>;
}

export const workspaceUri = "file:///workspace";

/** `file://` URI of an absolute sandbox path. */
export function fileUri(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * Answers for the requests servers send and wait on: configuration items get null (defaults),
 * progress tokens and capability registrations are accepted.
 */
function answerServerRequest(method: string, params: unknown): unknown {
  if (method === "workspace/configuration") {
    const items = (params as { items?: unknown[] } | null)?.items;
    return Array.isArray(items) ? items.map(() => null) : [];
  }
  if (method === "workspace/workspaceFolders") return [{ uri: workspaceUri, name: "workspace" }];
  return null;
}

const initializeParams = {
  processId: null,
  clientInfo: { name: "cairn" },
  rootUri: workspaceUri,
  rootPath: "/workspace",
  workspaceFolders: [{ uri: workspaceUri, name: "workspace" }],
  capabilities: {
    workspace: { configuration: true, workspaceFolders: true },
    textDocument: {
      synchronization: { dynamicRegistration: false, didSave: false },
      completion: {
        dynamicRegistration: false,
        contextSupport: true,
        completionItem: { snippetSupport: false, documentationFormat: ["plaintext", "markdown"] },
      },
    },
  },
};

function itemsOf(result: unknown): unknown[] {
  if (Array.isArray(result)) return result;
  const items = (result as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items : [];
}

/** Starts the LSP session on an already started process; the process is killed if that fails. */
export async function startLanguageClient(
  process: LanguageServerProcess,
  options: LanguageClientOptions,
): Promise<LanguageClient> {
  const connection: JsonRpcConnection = createJsonRpcConnection({
    input: process.stdout,
    output: process.stdin,
    requestTimeoutMs: options.requestTimeoutMs,
    answerServerRequest,
  });
  const exited = process.exited.finally(() => connection.close());
  try {
    await connection.request("initialize", initializeParams, options.initializeTimeoutMs);
    await connection.notify("initialized", {});
  } catch (error) {
    process.kill();
    connection.close();
    throw error;
  }
  const documents = new Map<string, { version: number; text: string }>();
  return {
    exited,
    async open(path, content) {
      const uri = fileUri(path);
      const version = (documents.get(path)?.version ?? 0) + 1;
      documents.set(path, { version, text: content });
      if (version === 1) {
        await connection.notify("textDocument/didOpen", {
          textDocument: { uri, languageId: options.languageIdOf(path), version, text: content },
        });
      } else {
        await connection.notify("textDocument/didChange", {
          textDocument: { uri, version },
          contentChanges: [{ text: content }],
        });
      }
    },
    documentText: (path) => documents.get(path)?.text,
    async completion(path, line, character) {
      const result = await connection.request("textDocument/completion", {
        textDocument: { uri: fileUri(path) },
        position: { line, character },
        context: { triggerKind: 1 },
      });
      return itemsOf(result);
    },
    async stop() {
      try {
        await connection.request("shutdown", null, options.shutdownGraceMs);
        await connection.notify("exit", null);
      } catch {
        // A server that cannot shut down cleanly is killed below all the same.
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), options.shutdownGraceMs);
      });
      const outcome = await Promise.race([exited.then(() => "ended" as const), grace]);
      clearTimeout(timer);
      if (outcome === "late") process.kill();
      connection.close();
    },
    kill() {
      process.kill();
      connection.close();
    },
  };
}
