/**
 * The fetch the CLI hands the SDK: JSON exchanges (the SDK's one-shot calls, `accept:
 * application/json` with a string body or none) go over node:http or node:https, one connection
 * each, closed after the answer; anything else (event streams, raw file bytes, a redirect, a
 * proxy set by NODE_USE_ENV_PROXY) goes to the global fetch. Why: Node loads its fetch (undici,
 * node:http2, web streams) on first use, 80–140 ms of CPU that `cairn whoami` spent before its
 * first request, more than the rest of the command (test/bench/cli-startup.ts).
 *
 * It fails as fetch does, so the SDK's messages stay the same: a connection failure rejects with
 * `TypeError("fetch failed")` whose cause is the socket's error, an aborted signal (the SDK's
 * timeout) with the signal's reason, before or during the body.
 */
import type { IncomingMessage } from "node:http";

type Init = NonNullable<Parameters<typeof fetch>[1]>;

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** The request keys handled here; a caller passing others (redirect, credentials…) gets fetch. */
const handledKeys = new Set(["method", "headers", "body", "signal"]);

function usesEnvironmentProxy(): boolean {
  const options = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`;
  return Boolean(process.env.NODE_USE_ENV_PROXY) || options.includes("--use-env-proxy");
}

/** Plain-object headers (never `instanceof Headers`: touching that global loads undici). */
function plainHeaders(init: Init | undefined): Record<string, string> | null {
  const headers = init?.headers;
  if (!headers || typeof headers !== "object" || Object.getPrototypeOf(headers) !== Object.prototype)
    return null;
  return headers as Record<string, string>;
}

function handledHere(input: Parameters<typeof fetch>[0], init: Init | undefined): boolean {
  if (typeof input !== "string" || !init || usesEnvironmentProxy()) return false;
  if (Object.keys(init).some((key) => !handledKeys.has(key))) return false;
  if (init.body !== undefined && init.body !== null && typeof init.body !== "string") return false;
  const headers = plainHeaders(init);
  const accept = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "accept")?.[1];
  return accept === "application/json" && /^https?:/.test(input);
}

/** The answer's headers, read the way the SDK reads them (`get`, case-insensitive). */
class AnswerHeaders {
  readonly #message: IncomingMessage;
  constructor(message: IncomingMessage) {
    this.#message = message;
  }
  get(name: string): string | null {
    const value = this.#message.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** The part of a fetch `Response` the SDK's JSON calls use: status, headers and the body as text. */
class JsonAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  readonly #body: Promise<string>;
  constructor(message: IncomingMessage, signal: AbortSignal | null | undefined) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new AnswerHeaders(message);
    this.#body = readBody(message, signal);
    // Read at once, as fetch buffers; a caller that never asks must not see an unhandled rejection.
    this.#body.catch(() => {});
  }
  async text(): Promise<string> {
    return this.#body;
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.#body);
  }
}

function readBody(message: IncomingMessage, signal: AbortSignal | null | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onAbort = () => message.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    message.on("data", (chunk: Buffer) => chunks.push(chunk));
    message.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: error }));
    });
    message.on("end", () => {
      signal?.removeEventListener("abort", onAbort);
      // fetch's text() decodes UTF-8 and drops a byte-order mark.
      resolve(
        Buffer.concat(chunks)
          .toString("utf8")
          .replace(/^\uFEFF/, ""),
      );
    });
  });
}

type RequestFunction = typeof import("node:http").request;

/**
 * node:http's or node:https's `request`, the module taken as a builtin rather than imported: on
 * Node 22 and 24 the ESM import of node:http reads every export, and its lazy `WebSocket` export
 * loads undici.
 */
async function requestFunction(protocol: string): Promise<RequestFunction> {
  const name = protocol === "https:" ? "node:https" : "node:http";
  const builtin = process.getBuiltinModule?.(name) as { request: RequestFunction } | undefined;
  if (builtin) return builtin.request;
  return name === "node:https" ? (await import("node:https")).request : (await import("node:http")).request;
}

async function exchange(url: URL, init: Init): Promise<IncomingMessage> {
  const request = await requestFunction(url.protocol);
  const signal = init.signal;
  const body = typeof init.body === "string" ? init.body : undefined;
  const headers: Record<string, string> = { "user-agent": "node", ...plainHeaders(init) };
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    // agent: false: a connection of its own, closed after the answer, so the process exits at once.
    const outgoing = request(url, { method: init.method ?? "GET", headers, agent: false });
    const onAbort = () => {
      outgoing.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    outgoing.on("response", (message) => {
      signal?.removeEventListener("abort", onAbort);
      resolve(message);
    });
    outgoing.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    outgoing.end(body);
  });
}

export const jsonFetch: typeof fetch = async (input, init) => {
  if (!handledHere(input, init)) return globalThis.fetch(input, init);
  const message = await exchange(new URL(input as string), init as Init);
  if (redirectStatuses.has(message.statusCode ?? 0) && message.headers.location) {
    // fetch follows redirects; the rare server that sends one gets fetch itself.
    message.destroy();
    return globalThis.fetch(input, init);
  }
  return new JsonAnswer(message, init?.signal) as unknown as Response;
};
