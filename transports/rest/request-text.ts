/**
 * A request's body as text, decoded one network read at a time as it arrives, and its JSON,
 * parsed in slices (core/json-in-slices.ts). Hono's `text()` joins the whole body and decodes it
 * at once, and one `JSON.parse` of a 16 MiB import held the thread serving every account for
 * 125–350 ms. Both are read once per request: the idempotency layer and the route share them.
 */
import type { Context } from "hono";
import { JsonLimitError, parseJsonInSlices, ServiceError } from "../../core/index.ts";

export function requestText(context: Context): Promise<string> {
  const cache = context.req.bodyCache as { text?: Promise<string> };
  const body = context.req.raw.body;
  // Read already (in some form), or nothing to read: Hono's own reading answers.
  if (Object.keys(cache).length > 0 || body === null || context.req.raw.bodyUsed) return context.req.text();
  const text = decodeInPieces(body);
  cache.text = text;
  return text;
}

async function decodeInPieces(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read())
    pieces.push(decoder.decode(read.value, { stream: true }));
  pieces.push(decoder.decode());
  return pieces.join("");
}

const parsed = new WeakMap<Request, Promise<unknown>>();

/**
 * The body's JSON value. Refused: text that is not JSON (or is empty) as `invalid_json`, and JSON
 * too deep or too wide to follow (core/json-in-slices.ts) as its input, `validation_error` at
 * `["body"]`, as a schema refuses deep metadata: the same on REST and MCP.
 */
export function requestJson(context: Context): Promise<unknown> {
  let json = parsed.get(context.req.raw);
  if (json === undefined) {
    json = requestText(context)
      .then((text) => parseJsonInSlices(text))
      .catch((error: unknown) => {
        if (error instanceof JsonLimitError)
          throw new ServiceError("validation_error", "Invalid request", {
            details: [{ type: error.type, loc: ["body"], msg: error.message }],
          });
        throw new ServiceError("invalid_json", "Request body is not valid JSON");
      });
    // Each caller handles the refusal; the cached promise itself is never left unhandled.
    json.catch(() => {});
    parsed.set(context.req.raw, json);
  }
  return json;
}
