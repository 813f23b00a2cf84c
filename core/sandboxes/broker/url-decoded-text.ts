/**
 * Text read as a URL decoder reads it, for the broker's redaction (secret-redaction.ts). Encoders
 * differ in which characters they escape (encodeURIComponent, encodeURI, RFC 3986, Python's quote
 * with or without `/` safe, form encoding, URLSearchParams) and in the case of the hex digits, so
 * rather than one pattern per encoder, the text is decoded once: every `%XX` is the byte it names,
 * whatever its case, and every other character is its UTF-8 bytes. A value's bytes are then found
 * however many of its characters were escaped.
 *
 * A space and `+` are read as one byte (`+`), in the text and in the patterns alike: form encoding
 * writes a space as `+`, and a service that decodes the other way round echoes one for the other.
 */

export interface DecodedText {
  /** One character per byte (codes 0–255), so text-search.ts searches it as it searches text. */
  bytes: string;
  /**
   * starts[i]: where in the text the character or escape that gave byte i begins; null when each
   * character gave one byte (ASCII text without escapes).
   */
  starts: Int32Array | null;
  textLength: number;
}

/** A value's bytes as decodeUrlText writes them, to search a DecodedText for. */
export function urlDecodedForm(value: string): string {
  let bytes = "";
  for (const byte of new TextEncoder().encode(value))
    bytes += String.fromCharCode(byte === space ? plus : byte);
  return bytes;
}

export function decodeUrlText(text: string): DecodedText {
  // The common case, and several times faster.
  if (!text.includes("%") && !/[\u0080-\uffff]/.test(text)) {
    return { bytes: text.replaceAll(" ", "+"), starts: null, textLength: text.length };
  }
  // At most the UTF-8 bytes of each UTF-16 unit alone: a surrogate pair gives four, an escape one.
  let capacity = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    capacity += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
  }
  const bytes = new Uint8Array(capacity);
  const starts = new Int32Array(capacity);
  let length = 0;
  for (let index = 0; index < text.length; ) {
    const start = index;
    let point = text.charCodeAt(index++);
    let escaped = false;
    if (point === percent) {
      const high = hexValue(text.charCodeAt(index));
      const low = hexValue(text.charCodeAt(index + 1));
      if (high >= 0 && low >= 0) {
        point = high * 16 + low;
        escaped = true;
        index += 2;
      }
    } else if (point >= 0xd800 && point <= 0xdfff) {
      const next = text.charCodeAt(index);
      if (point <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
        index++;
      } else {
        point = 0xfffd; // A lone surrogate, as TextEncoder writes it.
      }
    }
    // An escape gives the one byte it names; any other character its UTF-8 bytes.
    if (point < 0x80 || escaped) {
      bytes[length] = point === space ? plus : point;
      starts[length++] = start;
      continue;
    }
    const count = point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    for (let byte = 0; byte < count; byte++) {
      const shift = 6 * (count - 1 - byte);
      bytes[length] = byte === 0 ? utf8Lead[count] | (point >> shift) : 0x80 | ((point >> shift) & 0x3f);
      starts[length++] = start;
    }
  }
  return { bytes: binaryString(bytes, length), starts, textLength: text.length };
}

/** The span of the text that gave bytes[start, end). */
export function textSpan(decoded: DecodedText, start: number, end: number): [number, number] {
  const { starts, bytes } = decoded;
  if (starts === null) return [start, end];
  // Bytes of one character or escape are at most four in a row: this loop is short.
  let after = end;
  while (after < bytes.length && starts[after] === starts[end - 1]) after++;
  return [starts[start], after < bytes.length ? starts[after] : decoded.textLength];
}

/** How many bytes the text before `textIndex` gave. */
export function bytesBefore(decoded: DecodedText, textIndex: number): number {
  const { starts } = decoded;
  if (starts === null) return textIndex;
  let low = 0;
  let high = decoded.bytes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (starts[middle] < textIndex) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** How many characters at the end of text[0, end) are an escape cut short (`%` or `%2`). */
export function cutEscapeLength(text: string, end: number): number {
  if (text.charCodeAt(end - 1) === percent) return 1;
  return text.charCodeAt(end - 2) === percent && hexValue(text.charCodeAt(end - 1)) >= 0 ? 2 : 0;
}

const percent = 0x25;
const plus = 0x2b;
const space = 0x20;
/** The first byte's marker bits of a character written in 2, 3 or 4 bytes. */
const utf8Lead = [0, 0, 0xc0, 0xe0, 0xf0];

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

function binaryString(bytes: Uint8Array, length: number): string {
  const chunks: string[] = [];
  // In slices, as a whole MiB of arguments would overflow the stack; apply takes the typed array
  // as it is, several times faster than spreading it.
  for (let index = 0; index < length; index += 8192) {
    const slice = bytes.subarray(index, Math.min(length, index + 8192));
    chunks.push(String.fromCharCode.apply(null, slice as unknown as number[]));
  }
  return chunks.join("");
}
