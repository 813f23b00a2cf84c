/**
 * Idempotency-Key on POST (docs/api.md#idempotency-keys): the first response below 500 is kept per (caller
 * credential, method, path, key) and replayed verbatim (status, body, content type). The same
 * key with another body is 422 idempotency_key_reuse; while the first request still runs, 409
 * idempotency_key_in_progress. A 5xx frees the key so a retry runs again.
 */

import { bytesToHex } from "@noble/hashes/utils.js";
import type { Context, MiddlewareHandler } from "hono";
import {
  createSlices,
  type Platform,
  ServiceError,
  type Slices,
  sha256Hex,
  sortInSlices,
} from "../../core/index.ts";
import { requestJson, requestText } from "./request-text.ts";

const maxKeyLength = 255;

/**
 * What "the same body" means for a key: the same JSON, whatever its key order or white space (a
 * client that serialises again on a retry sends the same request); a body that is not JSON, its
 * bytes. Hashed in slices: a 16 MiB body's canonical form and hash took 200 ms at once.
 */
async function bodyHash(context: Context): Promise<string> {
  const text = await requestText(context);
  let value: unknown;
  try {
    value = await requestJson(context);
  } catch {
    return sha256Hex(text);
  }
  const slices = createSlices();
  return sha256OfParts(await canonicalJson(value, slices), slices);
}

/** Characters a part of the canonical form holds (each is encoded at once). */
const partCharacters = 64 * 1024;

/** A JSON value written one way, in parts: object keys sorted, no white space. */
async function canonicalJson(value: unknown, slices: Slices): Promise<string[]> {
  const parts: string[] = [];
  let pending: string[] = [];
  let pendingLength = 0;
  const emit = (text: string) => {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength < partCharacters) return;
    parts.push(pending.join(""));
    pending = [];
    pendingLength = 0;
  };
  // Containers being written: an array's items, or an object and its sorted keys.
  const open: Array<{
    close: string;
    items: unknown[] | Record<string, unknown>;
    keys: string[] | null;
    next: number;
  }> = [];
  const write = async (item: unknown) => {
    if (Array.isArray(item)) {
      emit("[");
      open.push({ close: "]", items: item, keys: null, next: 0 });
    } else if (item !== null && typeof item === "object") {
      const keys = Object.keys(item);
      emit("{");
      open.push({
        close: "}",
        items: item as Record<string, unknown>,
        keys: await sortInSlices(keys, slices),
        next: 0,
      });
    } else if (typeof item === "string" && item.length > partCharacters) {
      // A long string a piece at a time, never cutting a surrogate pair (alone, each half is escaped).
      emit('"');
      for (let start = 0; start < item.length; ) {
        let end = Math.min(start + partCharacters, item.length);
        if (end < item.length && isHighSurrogate(item.charCodeAt(end - 1))) end--;
        emit(JSON.stringify(item.slice(start, end)).slice(1, -1));
        start = end;
        await slices.pause();
      }
      emit('"');
    } else emit(JSON.stringify(item));
  };
  await write(value);
  let steps = 0;
  for (let top = open.at(-1); top !== undefined; top = open.at(-1)) {
    if (++steps % 1_024 === 0) await slices.pause();
    const index = top.next++;
    const length = top.keys?.length ?? (top.items as unknown[]).length;
    if (index === length) {
      emit(top.close);
      open.pop();
      continue;
    }
    if (index > 0) emit(",");
    if (top.keys === null) await write((top.items as unknown[])[index]);
    else {
      emit(`${JSON.stringify(top.keys[index])}:`);
      await write((top.items as Record<string, unknown>)[top.keys[index]]);
    }
  }
  parts.push(pending.join(""));
  return parts;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** SHA-256 of the parts joined, encoded a part at a time and digested off the thread. */
async function sha256OfParts(parts: string[], slices: Slices): Promise<string> {
  const encoder = new TextEncoder();
  const encoded: Uint8Array[] = [];
  let length = 0;
  for (const part of parts) {
    const bytes = encoder.encode(part);
    encoded.push(bytes);
    length += bytes.length;
    await slices.pause();
  }
  const all = new Uint8Array(length);
  let offset = 0;
  for (const bytes of encoded) {
    all.set(bytes, offset);
    offset += bytes.length;
  }
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", all)));
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
    const requestHash = await bodyHash(context);
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
