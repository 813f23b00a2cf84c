/**
 * A small HTTPS client for the test cluster's set-up, authenticated by a client certificate:
 * JSON requests, polling until a condition holds, and a watch that yields events. The tests
 * themselves talk to the cluster through Cairn's runtime (@kubernetes/client-node) instead.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";

export interface ApiResponse {
  status: number;
  body: unknown;
  text: string;
}

export interface ClusterApi {
  server: string;
  request(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** A request that must answer 2xx; anything else throws with the API server's message. */
  send(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Calls `onEvent` for each watch event of `path` until the returned stop is called. */
  watch(path: string, onEvent: (type: string, object: Record<string, unknown>) => void): () => void;
}

export function createClusterApi(options: {
  server: string;
  caCertificate: string;
  certificate: string;
  key: string;
}): ClusterApi {
  const tls = {
    ca: readFileSync(options.caCertificate),
    cert: readFileSync(options.certificate),
    key: readFileSync(options.key),
  };
  const open = (method: string, path: string, body: string | undefined, signal?: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpsRequest(
        new URL(path, options.server),
        {
          method,
          ...tls,
          signal,
          headers: body === undefined ? {} : { "content-type": "application/json" },
        },
        resolve,
      );
      request.on("error", reject);
      request.end(body);
    });

  const api: ClusterApi = {
    server: options.server,
    async request(method, path, body) {
      const response = await open(method, path, body === undefined ? undefined : JSON.stringify(body));
      let text = "";
      for await (const chunk of response) text += chunk;
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
      return { status: response.statusCode ?? 0, body: parsed, text };
    },
    async send(method, path, body) {
      const response = await api.request(method, path, body);
      if (response.status < 200 || response.status >= 300)
        throw new Error(`${method} ${path} answered ${response.status}: ${response.text.slice(0, 2000)}`);
      return response.body;
    },
    watch(path, onEvent) {
      const controller = new AbortController();
      const separator = path.includes("?") ? "&" : "?";
      void (async () => {
        while (!controller.signal.aborted) {
          try {
            const response = await open("GET", `${path}${separator}watch=1`, undefined, controller.signal);
            let buffered = "";
            for await (const chunk of response) {
              buffered += chunk;
              let newline = buffered.indexOf("\n");
              while (newline >= 0) {
                const line = buffered.slice(0, newline);
                buffered = buffered.slice(newline + 1);
                if (line.trim()) {
                  const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
                  onEvent(event.type, event.object);
                }
                newline = buffered.indexOf("\n");
              }
            }
          } catch {
            // The watch ended (server timeout, or stop); open it again unless stopped.
          }
          if (!controller.signal.aborted) await sleep(200);
        }
      })();
      return () => controller.abort();
    },
  };
  return api;
}

/**
 * Calls `check` until it returns a value other than undefined, or fails after `timeoutMs` with
 * `describe()`'s account of what was still missing (a log's tail, a condition's message).
 */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: {
    timeoutMs: number;
    intervalMs?: number;
    describe?: () => string;
    /** A reason to stop waiting at once (a component that exited), or undefined. */
    hopeless?: () => string | undefined;
  },
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    const hopeless = options.hopeless?.();
    if (hopeless) throw new Error(`${what}: cannot be reached: ${hopeless}`);
    if (performance.now() > deadline) {
      const cause = lastError ? ` (last error: ${String(lastError)})` : "";
      throw new Error(
        `${what}: not reached within ${options.timeoutMs} ms${cause}\n${options.describe?.() ?? ""}`,
      );
    }
    await sleep(options.intervalMs ?? 100);
  }
}
