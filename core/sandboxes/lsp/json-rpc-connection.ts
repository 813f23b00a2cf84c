/**
 * JSON-RPC 2.0 over the Language Server Protocol's base protocol (each message a UTF-8 JSON body
 * after a `Content-Length` header) on a pair of web streams, so the same client runs over a local
 * process's pipes or any other byte stream a runtime hands back (docs/sandboxes.md#language-servers).
 */

export interface JsonRpcConnectionOptions {
  /** Bytes from the server (its stdout). */
  input: ReadableStream<Uint8Array>;
  /** Bytes to the server (its stdin). */
  output: WritableStream<Uint8Array>;
  /** How long a request waits for its response before it fails. */
  requestTimeoutMs: number;
  /**
   * The result for a request the server sends (workspace/configuration and the like). A server
   * waits for these answers, so each gets one; by default null.
   */
  answerServerRequest?(method: string, params: unknown): unknown;
}

export interface JsonRpcConnection {
  request(method: string, params: unknown, timeoutMs?: number): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
  /** Settles once the server's output has ended (or broke); pending requests fail then. */
  readonly closed: Promise<void>;
  /** Stops reading and fails pending requests. */
  close(): void;
}

/** A request failed: the server answered an error, did not answer in time, or went away. */
export class JsonRpcError extends Error {
  readonly reason: "error_response" | "timeout" | "closed";
  readonly code: number | null;
  constructor(reason: JsonRpcError["reason"], message: string, code: number | null = null) {
    super(message);
    this.name = "JsonRpcError";
    this.reason = reason;
    this.code = code;
  }
}

// A completion list of a big module is a few MiB; anything far past that is a broken stream, or a
// sandbox feeding the server JSON to parse on its event loop (16 MiB is about 100 ms of parsing).
const maximumMessageBytes = 16 * 1024 * 1024;
const headerEnd = new Uint8Array([13, 10, 13, 10]);

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

function indexOfSequence(buffer: Uint8Array, sequence: Uint8Array, from = 0): number {
  outer: for (let start = from; start <= buffer.length - sequence.length; start++) {
    for (let offset = 0; offset < sequence.length; offset++) {
      if (buffer[start + offset] !== sequence[offset]) continue outer;
    }
    return start;
  }
  return -1;
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  if (first.length === 0) return second;
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

/** Encodes one message with its header. */
export function frameMessage(message: unknown): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(message));
  return concat(new TextEncoder().encode(`Content-Length: ${body.length}\r\n\r\n`), body);
}

/** Splits a byte stream into the JSON messages it frames; throws on a malformed header. */
export async function* readMessages(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer: Uint8Array = new Uint8Array(0);
  let bodyLength: number | null = null;
  // Chunks of a body still arriving, joined once the whole body is there.
  let waiting: Uint8Array[] = [];
  let waitingBytes = 0;
  while (true) {
    if (waiting.length > 0 && (bodyLength === null || waitingBytes + buffer.length >= bodyLength)) {
      const joined = new Uint8Array(buffer.length + waitingBytes);
      joined.set(buffer);
      let offset = buffer.length;
      for (const chunk of waiting) {
        joined.set(chunk, offset);
        offset += chunk.length;
      }
      buffer = joined;
      waiting = [];
      waitingBytes = 0;
    }
    if (bodyLength === null) {
      const end = indexOfSequence(buffer, headerEnd);
      if (end >= 0) {
        const header = decoder.decode(buffer.subarray(0, end));
        const match = /^content-length:\s*(\d+)\s*$/im.exec(header);
        if (!match) throw new Error("language server message without Content-Length");
        bodyLength = Number(match[1]);
        if (bodyLength > maximumMessageBytes) throw new Error("language server message too large");
        buffer = buffer.subarray(end + headerEnd.length);
        continue;
      }
      if (buffer.length > 8192) throw new Error("language server header too long");
    } else if (buffer.length >= bodyLength) {
      const body = buffer.subarray(0, bodyLength);
      buffer = buffer.subarray(bodyLength);
      bodyLength = null;
      yield JSON.parse(decoder.decode(body));
      continue;
    }
    const { value, done } = await reader.read();
    if (done) return;
    if (bodyLength === null) buffer = concat(buffer, value);
    else {
      waiting.push(value);
      waitingBytes += value.length;
    }
  }
}

interface Message {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

export function createJsonRpcConnection(options: JsonRpcConnectionOptions): JsonRpcConnection {
  const writer = options.output.getWriter();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let ended = false;

  const failPending = (error: JsonRpcError) => {
    ended = true;
    for (const [id, request] of pending) {
      clearTimeout(request.timer);
      pending.delete(id);
      request.reject(error);
    }
  };

  // Writes go out whole and in call order; a broken pipe fails the write, not the process.
  const send = (message: unknown) => writer.write(frameMessage(message));

  const answer = async (message: Message) => {
    let result: unknown = null;
    try {
      result = options.answerServerRequest?.(message.method as string, message.params) ?? null;
    } catch {
      result = null;
    }
    await send({ jsonrpc: "2.0", id: message.id, result }).catch(() => {});
  };

  const reader = options.input.getReader();
  const closed = (async () => {
    try {
      for await (const raw of readMessages(reader)) {
        const message = raw as Message;
        if (typeof message !== "object" || message === null) continue;
        if (message.method !== undefined && message.id !== undefined) void answer(message);
        else if (message.method === undefined && typeof message.id === "number") {
          const request = pending.get(message.id);
          if (!request) continue;
          pending.delete(message.id);
          clearTimeout(request.timer);
          if (message.error) {
            request.reject(
              new JsonRpcError(
                "error_response",
                message.error.message ?? "error",
                message.error.code ?? null,
              ),
            );
          } else request.resolve(message.result ?? null);
        }
        // Notifications from the server (logs, diagnostics, progress) are not needed.
      }
    } catch {
      // A broken or malformed stream ends the connection like a closed one.
    }
    failPending(new JsonRpcError("closed", "the language server closed its output"));
  })();

  return {
    request(method, params, timeoutMs = options.requestTimeoutMs) {
      if (ended) return Promise.reject(new JsonRpcError("closed", "the language server is not running"));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new JsonRpcError("timeout", `${method} had no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        send({ jsonrpc: "2.0", id, method, params }).catch(() => {
          clearTimeout(timer);
          pending.delete(id);
          reject(new JsonRpcError("closed", "the language server's input is closed"));
        });
      });
    },
    async notify(method, params) {
      if (ended) throw new JsonRpcError("closed", "the language server is not running");
      await send({ jsonrpc: "2.0", method, params }).catch(() => {
        throw new JsonRpcError("closed", "the language server's input is closed");
      });
    },
    closed,
    close() {
      failPending(new JsonRpcError("closed", "the connection was closed"));
      void reader.cancel().catch(() => {});
      void writer.close().catch(() => {});
    },
  };
}
