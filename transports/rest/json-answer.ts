/**
 * A JSON answer written in slices when it is long. `JSON.stringify` of a 500-memory import's
 * answer (16 MiB of contents) held the serving thread for about 45 ms, so every other account's
 * request waited behind it (issue: no account can stall the server for the others). An answer
 * with a long array, at its top or in a top-level field, is written item by item, taking turns
 * with the rest of the event loop (core/event-loop-turns.ts); the bytes are exactly
 * `JSON.stringify`'s. Anything else is stringified at once, as before.
 */
import { createSlices } from "../../core/index.ts";

/** Arrays at least this long are written item by item. */
const longArray = 64;
/** Text gathered before it is handed to the stream as one chunk. */
const chunkCharacters = 64 * 1024;

const isLong = (value: unknown): value is unknown[] => Array.isArray(value) && value.length >= longArray;

/** Whether the value is worth writing in slices: a long array, or an object with one as a field. */
export function writesInSlices(value: unknown): boolean {
  if (isLong(value)) return true;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  return Object.values(value).some(isLong);
}

/** The pieces of `JSON.stringify(value)`, an array's items one at a time. */
function* pieces(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    yield "[";
    for (let index = 0; index < value.length; index++) {
      // As JSON.stringify writes them: undefined, a function or a symbol in an array is null.
      yield `${index === 0 ? "" : ","}${JSON.stringify(value[index]) ?? "null"}`;
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (isLong(field)) {
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      yield* pieces(field);
    } else {
      const text = JSON.stringify(field);
      // A field JSON.stringify leaves out (undefined, a function) is left out here too.
      if (text === undefined) continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
    }
    first = false;
  }
  yield "}";
}

/** `JSON.stringify(value)` as a stream of UTF-8 chunks, written in slices of the event loop. */
export function jsonInSlices(value: unknown): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const source = pieces(value);
  const slices = createSlices();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = "";
      for (let next = source.next(); ; next = source.next()) {
        if (next.done) {
          if (text !== "") controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        text += next.value;
        if (text.length >= chunkCharacters) break;
      }
      controller.enqueue(encoder.encode(text));
      await slices.pause();
    },
  });
}
