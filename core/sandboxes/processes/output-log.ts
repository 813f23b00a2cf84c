/**
 * The output of one background process (docs/sandboxes.md#processes): stdout and stderr in one
 * log, in the order they arrived, each chunk tagged with its stream. Offsets count bytes of that
 * combined log from the process's start, so one number says where a reader is in both streams:
 * a page from `since` to `next` holds every byte of either stream in between, and the next page
 * starts at `next`. The log keeps at most `capacityBytes` (the oldest chunks are dropped first;
 * a reader behind them is told `truncated` and where the kept bytes start). Chunks hold whole
 * UTF-8 characters only (a character split across two reads waits for its rest), so a page
 * boundary never cuts one and JSON text loses nothing.
 */

export type OutputStream = "stdout" | "stderr";

export interface OutputChunk {
  stream: OutputStream;
  /** Offset of the chunk's first byte. */
  offset: number;
  bytes: Uint8Array;
}

export interface OutputPage {
  /** Where the page starts: `since`, or the first kept byte when older bytes were dropped. */
  offset: number;
  /** The offset to ask for next: the end of the page. */
  nextOffset: number;
  /** True when bytes between `since` and `offset` were dropped. */
  truncated: boolean;
  chunks: OutputChunk[];
}

export interface OutputLog {
  /** Adds what a stream produced; an incomplete trailing character is held for its next bytes. */
  append(stream: OutputStream, bytes: Uint8Array): void;
  /** Flushes held bytes (the stream ended). */
  end(stream: OutputStream): void;
  /** Bytes produced so far (the offset the next byte will have). */
  readonly totalBytes: number;
  /** Offset of the first kept byte. */
  readonly startOffset: number;
  /** Chunks from `since` on, at most `maxBytes` of them (at least one whole character). */
  read(since: number, maxBytes: number): OutputPage;
}

/** How many bytes at the end of `bytes` start a UTF-8 character they do not finish. */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    return characterLength(byte) > back ? back : 0;
  }
  return 0;
}

/** The bytes of the UTF-8 character a lead byte starts. */
const characterLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1);

/** The largest cut ≤ `limit` in `bytes` that does not split a character (0 if none fits). */
function characterCut(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  let cut = limit;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return cut;
}

export function createOutputLog(capacityBytes: number): OutputLog {
  const chunks: OutputChunk[] = [];
  const held: Record<OutputStream, Uint8Array> = { stdout: new Uint8Array(0), stderr: new Uint8Array(0) };
  let total = 0;
  let kept = 0;

  const push = (stream: OutputStream, bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    chunks.push({ stream, offset: total, bytes });
    total += bytes.length;
    kept += bytes.length;
    while (kept > capacityBytes && chunks.length > 0) {
      const first = chunks[0];
      const excess = kept - capacityBytes;
      if (first.bytes.length <= excess) {
        chunks.shift();
        kept -= first.bytes.length;
        continue;
      }
      // Drop the head of the oldest chunk, up to a character boundary past the excess.
      let cut = excess;
      while (cut < first.bytes.length && (first.bytes[cut] & 0xc0) === 0x80) cut++;
      chunks[0] = { stream: first.stream, offset: first.offset + cut, bytes: first.bytes.subarray(cut) };
      kept -= cut;
    }
  };

  return {
    append(stream, bytes) {
      const joined = held[stream].length === 0 ? bytes : concat(held[stream], bytes);
      const tail = incompleteTail(joined);
      held[stream] = joined.slice(joined.length - tail);
      push(stream, joined.slice(0, joined.length - tail));
    },
    end(stream) {
      push(stream, held[stream]);
      held[stream] = new Uint8Array(0);
    },
    get totalBytes() {
      return total;
    },
    get startOffset() {
      return chunks[0]?.offset ?? total;
    },
    read(since, maxBytes) {
      const start = Math.max(since, chunks[0]?.offset ?? total);
      const page: OutputChunk[] = [];
      let position = start;
      let room = maxBytes;
      for (const chunk of chunks) {
        const end = chunk.offset + chunk.bytes.length;
        if (end <= position) continue;
        if (room <= 0) break;
        const from = position - chunk.offset;
        const rest = chunk.bytes.subarray(from);
        let cut = characterCut(rest, room);
        // A page always moves on: at least one character, even past maxBytes.
        if (cut === 0 && page.length === 0) cut = Math.min(rest.length, characterLength(rest[0]));
        if (cut === 0) break;
        page.push({ stream: chunk.stream, offset: position, bytes: rest.subarray(0, cut) });
        position += cut;
        room -= cut;
        if (cut < rest.length) break;
      }
      return { offset: start, nextOffset: position, truncated: start > since, chunks: page };
    },
  };
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}
