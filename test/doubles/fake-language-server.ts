/**
 * A language server made of two TransformStreams, for tests of the LSP client and of anything
 * built on it: it speaks the base protocol, records what it received, and answers requests with
 * `respond` (initialize, shutdown and completion have defaults). `exit` ends it like a process.
 */
import type { SandboxProcess } from "../../core/ports/sandbox-runtime.ts";
import { frameMessage, readMessages } from "../../core/sandboxes/lsp/json-rpc-connection.ts";

export interface ReceivedMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
}

export interface FakeLanguageServerOptions {
  /** The result of a request; undefined gives the default, and a request without one is left unanswered. */
  respond?(method: string, params: unknown): unknown;
  /** Requests left unanswered whatever their default. */
  unanswered?: string[];
  /** Whether `exit` ends the process (false: it lingers until killed). */
  exitsOnExit?: boolean;
}

export interface FakeLanguageServer {
  process: SandboxProcess;
  received: ReceivedMessage[];
  /** Sends raw bytes to the client (for framing tests). */
  sendBytes(bytes: Uint8Array): Promise<void>;
  /** Sends a message (a server request or notification) to the client. */
  send(message: object): Promise<void>;
  /** Resolves once a message with this method (or a response to this id) has arrived. */
  waitFor(match: (message: ReceivedMessage) => boolean): Promise<ReceivedMessage>;
  killed: boolean;
}

const defaults: Record<string, unknown> = {
  initialize: { capabilities: { completionProvider: { triggerCharacters: ["."] } } },
  shutdown: null,
  "textDocument/completion": { isIncomplete: false, items: [{ label: "toUpperCase", kind: 2 }] },
};

export function createFakeLanguageServer(options: FakeLanguageServerOptions = {}): FakeLanguageServer {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toClient.writable.getWriter();
  let exit: (code: number | null) => void = () => {};
  const exited = new Promise<number | null>((resolve) => {
    exit = resolve;
  });
  const waiters: Array<{
    match: (message: ReceivedMessage) => boolean;
    resolve(message: ReceivedMessage): void;
  }> = [];
  const server: FakeLanguageServer = {
    received: [],
    killed: false,
    sendBytes: (bytes) => writer.write(bytes),
    send: (message) => writer.write(frameMessage({ jsonrpc: "2.0", ...message })),
    waitFor(match) {
      const seen = server.received.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    process: {
      stdin: toServer.writable,
      stdout: toClient.readable,
      exited,
      kill() {
        server.killed = true;
        end(null);
      },
    },
  };
  let ended = false;
  const end = (code: number | null) => {
    if (ended) return;
    ended = true;
    void writer.close().catch(() => {});
    exit(code);
  };
  void (async () => {
    try {
      for await (const raw of readMessages(toServer.readable.getReader())) {
        const message = raw as ReceivedMessage;
        server.received.push(message);
        for (const waiter of waiters.filter((candidate) => candidate.match(message))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
        if (message.method === "exit" && options.exitsOnExit !== false) end(0);
        if (message.method === undefined || message.id === undefined) continue;
        if (options.unanswered?.includes(message.method)) continue;
        const result = options.respond?.(message.method, message.params);
        if (result !== undefined) {
          await writer.write(frameMessage({ jsonrpc: "2.0", id: message.id, result }));
        } else if (Object.hasOwn(defaults, message.method)) {
          await writer.write(
            frameMessage({ jsonrpc: "2.0", id: message.id, result: defaults[message.method] }),
          );
        }
      }
    } catch {
      // The client went away.
    }
  })();
  return server;
}
