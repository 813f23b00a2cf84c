/**
 * A request's body as text, decoded one network read at a time as it arrives. Hono's `text()`
 * joins the whole body and decodes it at once: for a 16 MiB import that alone held the thread
 * serving every account for tens of milliseconds. The text goes into Hono's body cache, so a
 * later `context.req.text()` (the idempotency layer's) shares this read.
 */
import type { Context } from "hono";

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
