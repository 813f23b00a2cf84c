/**
 * One HTTP exchange with the server, and the opt-in retry around it. Web-standard `fetch` only, so
 * the SDK runs unchanged on Node, Deno and in browsers.
 *
 * Retry (off unless asked for) repeats only idempotent verbs, only after a connection failure or a
 * 429/500/502/503/504, with exponential backoff and full jitter. A `Retry-After` from the server
 * replaces the backoff; when it asks for longer than `maxDelayMs` the error is thrown instead, since
 * waiting hours (a monthly cap) inside a call helps nobody.
 */
import { CairnConnectionError, CairnError, toApiError } from "./errors.ts";

export interface RetryOptions {
  /** Attempts after the first (default 2). */
  maxRetries?: number;
  /** The first backoff ceiling in ms (default 500); doubles per attempt. */
  baseDelayMs?: number;
  /** The longest wait between attempts in ms (default 30000). */
  maxDelayMs?: number;
}

export interface Transport {
  baseUrl: string;
  fetchImpl: typeof fetch;
  timeoutMs: number;
  retry: Required<RetryOptions> | null;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface HttpCall {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The bearer credential (an API key or a dashboard token); none for signup and login. */
  credential?: string | null;
  /** Overrides the client's timeout (exec waits for its command). */
  timeoutMs?: number;
  /** Extra request headers (an `Idempotency-Key`). */
  headers?: Record<string, string>;
}

const idempotentMethods = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const retryStatuses = new Set([429, 500, 502, 503, 504]);

export function retrySettings(retry: boolean | RetryOptions | undefined): Required<RetryOptions> | null {
  if (!retry) return null;
  const options = retry === true ? {} : retry;
  return {
    maxRetries: options.maxRetries ?? 2,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
  };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function urlOf(transport: Transport, call: Pick<HttpCall, "path" | "query">): string {
  const url = new URL(`${transport.baseUrl}${call.path}`);
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  return url.href;
}

async function attempt(transport: Transport, call: HttpCall): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers, accept: "application/json" };
  if (call.credential) headers.authorization = `Bearer ${call.credential}`;
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const timeoutMs = call.timeoutMs ?? transport.timeoutMs;
  try {
    return await transport.fetchImpl(urlOf(transport, call), {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    const reason = timedOut ? `no answer within ${timeoutMs / 1000} s` : describe(error);
    throw new CairnConnectionError(`${call.method} ${call.path} failed: ${reason}`, { cause: error });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

/** Sends the call and returns the parsed JSON body (undefined for 204), or throws a `CairnError`. */
export async function send<T>(transport: Transport, call: HttpCall): Promise<T> {
  const retry = idempotentMethods.has(call.method) ? transport.retry : null;
  for (let attemptNumber = 0; ; attemptNumber++) {
    const canRetry = retry !== null && attemptNumber < retry.maxRetries;
    const backoff = () =>
      Math.random() * Math.min(retry!.maxDelayMs, retry!.baseDelayMs * 2 ** attemptNumber);
    let response: Response;
    try {
      response = await attempt(transport, call);
    } catch (error) {
      if (!canRetry) throw error;
      await sleep(backoff());
      continue;
    }
    const text = await response.text().catch((error: unknown) => {
      throw new CairnConnectionError(`${call.method} ${call.path}: the answer broke off: ${describe(error)}`);
    });
    if (response.ok) return decode<T>(response.status, text, call);
    const apiError = toApiError(response.status, response.headers, text);
    if (!canRetry || !retryStatuses.has(response.status)) throw apiError;
    const waitMs = apiError.retryAfterSeconds === null ? backoff() : apiError.retryAfterSeconds * 1000;
    if (waitMs > retry.maxDelayMs) throw apiError;
    await sleep(waitMs);
  }
}

/** A call whose body (PUT) or answer (GET) is bytes: the raw file routes. */
export interface RawCall {
  method: "GET" | "PUT";
  path: string;
  query?: Record<string, QueryValue>;
  credential?: string | null;
  /** The bytes to send; a stream is sent as it is read (and never retried, as it cannot be replayed). */
  body?: Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;
  timeoutMs?: number;
}

/**
 * Sends a raw call and returns the successful Response, its body unread (the caller streams it),
 * or throws a `CairnError` as `send` does. The timeout covers the whole exchange, body included.
 */
export async function sendRaw(transport: Transport, call: RawCall): Promise<Response> {
  const isStream = typeof ReadableStream !== "undefined" && call.body instanceof ReadableStream;
  const retry = isStream ? null : transport.retry;
  const timeoutMs = call.timeoutMs ?? transport.timeoutMs;
  const headers: Record<string, string> = { accept: "application/octet-stream, application/json" };
  if (call.credential) headers.authorization = `Bearer ${call.credential}`;
  if (call.body !== undefined) headers["content-type"] = "application/octet-stream";
  for (let attemptNumber = 0; ; attemptNumber++) {
    const canRetry = retry !== null && attemptNumber < retry.maxRetries;
    const backoff = () =>
      Math.random() * Math.min(retry!.maxDelayMs, retry!.baseDelayMs * 2 ** attemptNumber);
    let response: Response;
    try {
      response = await transport.fetchImpl(urlOf(transport, call), {
        method: call.method,
        headers,
        body: call.body as BodyInit | undefined,
        signal: AbortSignal.timeout(timeoutMs),
        // A streamed request body needs half duplex (fetch's rule for ReadableStream bodies).
        ...(isStream ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      if (canRetry) {
        await sleep(backoff());
        continue;
      }
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      const reason = timedOut ? `no answer within ${timeoutMs / 1000} s` : describe(error);
      throw new CairnConnectionError(`${call.method} ${call.path} failed: ${reason}`, { cause: error });
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    const apiError = toApiError(response.status, response.headers, text);
    if (!canRetry || !retryStatuses.has(response.status)) throw apiError;
    const waitMs = apiError.retryAfterSeconds === null ? backoff() : apiError.retryAfterSeconds * 1000;
    if (waitMs > retry.maxDelayMs) throw apiError;
    await sleep(waitMs);
  }
}

function decode<T>(status: number, text: string, call: HttpCall): T {
  if (status === 204 || text === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CairnError(
      `${call.method} ${call.path}: the server answered ${status} with a body that is not JSON`,
    );
  }
}
