/**
 * Idempotency-Key on POST (docs/api.md#idempotency-keys): the first response below 500 is kept per (caller
 * credential, method, path, key) and replayed verbatim (status, body, content type). The same
 * key with another body is 422 idempotency_key_reuse; while the first request still runs, 409
 * idempotency_key_in_progress. A 5xx frees the key so a retry runs again.
 */

import type { MiddlewareHandler } from "hono";
import { type Platform, ServiceError, sha256Hex } from "../../core/index.ts";
import { requestText } from "./request-text.ts";

const maxKeyLength = 255;

/** A JSON value written one way: object keys sorted, no white space. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * What "the same body" means for a key: the same JSON, whatever its key order or white space (a
 * client that serialises again on a retry sends the same request); a body that is not JSON, its
 * bytes.
 */
function canonicalBody(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

export function idempotency(
  platform: Platform,
  clientIp: (request: Request, environment: unknown) => string,
): MiddlewareHandler {
  return async (context, next) => {
    const key = context.req.header("Idempotency-Key");
    if (context.req.method !== "POST" || key === undefined) return next();
    if (key.length === 0 || key.length > maxKeyLength) {
      throw new ServiceError("validation_error", "Invalid request", {
        details: [
          {
            type: "value_error",
            loc: ["header", "Idempotency-Key"],
            msg: `Must be 1 to ${maxKeyLength} characters`,
          },
        ],
      });
    }
    // The credential itself is hashed into the scope, never stored; anonymous callers by address.
    const caller = context.req.header("Authorization") ?? `ip:${clientIp(context.req.raw, context.env)}`;
    const scopeKey = await sha256Hex(`${caller}\n${context.req.method}\n${context.req.path}\n${key}`);
    const requestHash = await sha256Hex(canonicalBody(await requestText(context)));
    const claim = await platform.storage.idempotency.claim(scopeKey, requestHash, platform.clock.now());
    if (claim.state === "completed") {
      return new Response(claim.body === "" ? null : claim.body, {
        status: claim.status,
        headers: claim.contentType ? { "content-type": claim.contentType } : {},
      });
    }
    if (claim.state === "mismatch") {
      throw new ServiceError(
        "idempotency_key_reuse",
        "This Idempotency-Key was used with a different request body",
      );
    }
    if (claim.state === "in_progress") {
      throw new ServiceError(
        "idempotency_key_in_progress",
        "A request with this Idempotency-Key is still running",
      );
    }
    try {
      await next();
    } catch (error) {
      await platform.storage.idempotency.release(scopeKey);
      throw error;
    }
    const response = context.res;
    if (response.status >= 500) {
      await platform.storage.idempotency.release(scopeKey);
      return;
    }
    const contentType = response.headers.get("content-type") ?? "";
    const recorded = response
      .clone()
      .text()
      .then((body) =>
        platform.storage.idempotency.complete(scopeKey, { status: response.status, contentType, body }),
      );
    // An event stream (a streamed exec, an MCP call with progress) goes out as it comes: it is
    // kept for replays once it has ended, and a retry meanwhile is told the request is running.
    if (contentType.startsWith("text/event-stream")) {
      recorded.catch(() => platform.storage.idempotency.release(scopeKey).catch(() => {}));
      return;
    }
    await recorded;
  };
}
