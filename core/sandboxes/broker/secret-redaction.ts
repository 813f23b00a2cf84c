/**
 * Redaction of secret values from what the HTTP broker hands back to a sandbox
 * (docs/sandboxes.md#http-broker-and-secrets; the forms and limits are listed in BROKER.md).
 * A service echoes a value in more than one form, so each secret is looked for as itself,
 * JSON-escaped, URL-encoded by any encoder (url-decoded-text.ts), as hex (either case) and as
 * base64 or base64url at any byte offset inside a longer blob (GitHub's contents API returns files
 * that way), with or without padding, wrapped into lines. What this cannot promise is in
 * core/sandboxes/broker/BROKER.md.
 *
 * Every search is linear in the text (text-search.ts); matches are collected as spans of the
 * original text and replaced in one pass, so one form's marker never hides or splits another's.
 */
import { base64Runs, indexOfCharacter } from "./base64-runs.ts";
import { compilePattern, forEachMatch, longestPrefixAtEnd, type SearchPattern } from "./text-search.ts";
import { bytesBefore, cutEscapeLength, decodeUrlText, textSpan, urlDecodedForm } from "./url-decoded-text.ts";

export const redactionMarker = "[REDACTED]";

/**
 * Below this many UTF-8 bytes a secret's hex and base64 forms are too short to tell apart from
 * other text (4 bytes leave as few as 4 base64 characters that depend on the value alone), so a
 * shorter secret is redacted only as itself, URL-encoded and JSON-escaped.
 */
export const minimumEncodedSecretBytes = 5;

interface SecretForms {
  /** Searched in the text as it is: the value and its JSON escapes. */
  textual: SearchPattern[];
  /** The textual forms' bytes, searched in the text URL-decoded: any encoder's escapes, JSON's too. */
  urlDecoded: SearchPattern[];
  /** Lower-case hex, searched in a copy of the text with A–F lowered, so any case matches. */
  hex: SearchPattern | null;
  /** Per byte offset mod 3, the base64 characters that depend on the value alone. */
  base64: SearchPattern[];
}

export interface RedactOptions {
  /**
   * The text was cut at a size cap: a value cut in half at the end is redacted too, or a caller
   * who pads the echoed request could read a secret one prefix at a time.
   */
  cutAtEnd?: boolean;
}

/** A redactor for a set of secret values; build it once and apply it to the body and each header. */
export function createRedactor(values: Iterable<string>): (text: string, options?: RedactOptions) => string {
  const forms = [...new Set(values)].filter((value) => value.length > 0).map(secretForms);
  if (forms.length === 0) return (text) => text;
  return (text, options = {}) => redact(text, forms, options.cutAtEnd ?? false);
}

/** One-off form of createRedactor. */
export function redactSecrets(text: string, values: Iterable<string>, options: RedactOptions = {}): string {
  return createRedactor(values)(text, options);
}

function secretForms(value: string): SecretForms {
  const json = JSON.stringify(value).slice(1, -1);
  // JSON written ASCII-only (Python's json.dumps, many others) escapes the rest as \uXXXX.
  const asciiJson = json.replace(/[\u0080-\uffff]/g, (character) => `\\u${hex4(character.charCodeAt(0))}`);
  const textual = [
    ...new Set([
      value,
      json,
      asciiJson,
      asciiJson.replace(/\\u[0-9a-f]{4}/g, (sequence) => `\\u${sequence.slice(2).toUpperCase()}`),
    ]),
  ];
  const bytes = new TextEncoder().encode(value);
  const encoded = bytes.length >= minimumEncodedSecretBytes;
  return {
    textual: textual.map(compilePattern),
    urlDecoded: [...new Set(textual.map(urlDecodedForm))].map(compilePattern),
    hex: encoded
      ? compilePattern(Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(""))
      : null,
    base64: encoded ? [0, 1, 2].map((offset) => compilePattern(stableBase64(bytes, offset))) : [],
  };
}

function hex4(code: number): string {
  return code.toString(16).padStart(4, "0");
}

/**
 * The base64 characters of `bytes` placed `offset` bytes into a longer blob that depend on
 * nothing but `bytes`: each character carries 6 bits, and those straddling a neighbouring byte
 * change with it. Standard alphabet; base64url is mapped onto it when the text is scanned.
 */
export function stableBase64(bytes: Uint8Array, offset: number): string {
  const padded = new Uint8Array(offset + bytes.length + 2);
  padded.set(bytes, offset);
  let binary = "";
  for (const byte of padded) binary += String.fromCharCode(byte);
  const first = Math.ceil((8 * offset) / 6);
  const last = Math.floor((8 * (offset + bytes.length)) / 6);
  return btoa(binary).slice(first, last);
}

function redact(text: string, forms: SecretForms[], cutAtEnd: boolean): string {
  // reach[start] is the furthest end of a span to redact that begins at start (allocated on the first match).
  const spans: { reach: Int32Array | null } = { reach: null };
  const mark = (start: number, end: number) => {
    spans.reach ??= new Int32Array(text.length + 1);
    if (end > spans.reach[start]) spans.reach[start] = end;
  };
  // A multi-byte character cut in half decodes as U+FFFD; a cut value's prefix ends before it.
  let kept = text.length;
  if (cutAtEnd) while (kept > 0 && text.charCodeAt(kept - 1) === 0xfffd) kept--;

  for (const { textual } of forms) {
    for (const pattern of textual) {
      forEachMatch(text, pattern, (start) => mark(start, start + pattern.text.length));
      const cut = cutAtEnd ? longestPrefixAtEnd(text, pattern, 0, kept) : 0;
      if (cut > 0) mark(kept - cut, text.length);
    }
  }
  redactUrlEncoded(text, forms, cutAtEnd ? kept : null, mark);
  if (forms.some((form) => form.hex !== null)) {
    // Only A–F are lowered, so every index still points at the same character of `text`.
    const lowered = text.replace(/[A-F]/g, (letter) => letter.toLowerCase());
    for (const { hex } of forms) {
      if (hex === null) continue;
      forEachMatch(lowered, hex, (start) => mark(start, start + hex.text.length));
      const cut = cutAtEnd ? longestPrefixAtEnd(lowered, hex, 0, kept) : 0;
      if (cut > 0) mark(kept - cut, text.length);
    }
  }
  const base64 = forms.flatMap((form) => form.base64);
  if (base64.length > 0) {
    const shortest = Math.min(...base64.map((pattern) => pattern.text.length));
    const runs = base64Runs(text, shortest, kept - 2);
    for (const run of runs) {
      // The characters next to a match carry bits of the value too: the whole run goes.
      if (base64.some((pattern) => contains(run.characters, pattern))) mark(run.start, run.end);
    }
    const last = runs.at(-1);
    // A run that reaches the cut, give or take a split escape (`\`, `%2`), may end in a value's
    // first characters: those go, with the character before them at the offsets (1 and 2 mod 3)
    // where it carries bits of the value's first byte.
    if (cutAtEnd && last !== undefined && !last.padded && last.end >= kept - 2) {
      let redacted = 0;
      base64.forEach((pattern, index) => {
        const cut = longestPrefixAtEnd(last.characters, pattern);
        if (cut > 0) redacted = Math.max(redacted, cut + (index % 3 === 0 ? 0 : 1));
      });
      if (redacted > 0) {
        const first = Math.max(0, last.characters.length - redacted);
        mark(indexOfCharacter(text, last, first), text.length);
      }
    }
  }
  return spans.reach === null ? text : applySpans(text, spans.reach);
}

/**
 * Matches in the URL-decoded text. Without a `%` in the text, and without a space or `+` in both
 * the text and a pattern, decoding changes nothing the textual search has not already read.
 */
function redactUrlEncoded(
  text: string,
  forms: SecretForms[],
  kept: number | null,
  mark: (start: number, end: number) => void,
): void {
  const patterns = forms.flatMap((form) => form.urlDecoded);
  const spaceOrPlus = /[ +]/.test(text) && patterns.some((pattern) => pattern.text.includes("+"));
  if (!text.includes("%") && !spaceOrPlus) return;
  const decoded = decodeUrlText(text);
  // A cut may split an escape too (`%2`): the value's bytes before it are what is left.
  const keptBytes = kept === null ? 0 : bytesBefore(decoded, kept - cutEscapeLength(text, kept));
  for (const pattern of patterns) {
    forEachMatch(decoded.bytes, pattern, (start) =>
      mark(...textSpan(decoded, start, start + pattern.text.length)),
    );
    const cut = kept === null ? 0 : longestPrefixAtEnd(decoded.bytes, pattern, 0, keptBytes);
    if (cut > 0) mark(textSpan(decoded, keptBytes - cut, keptBytes)[0], text.length);
  }
}

function contains(text: string, pattern: SearchPattern): boolean {
  let found = false;
  if (text.length >= pattern.text.length) forEachMatch(text, pattern, () => (found = true));
  return found;
}

/** Replaces each union of overlapping spans with one marker. */
function applySpans(text: string, reach: Int32Array): string {
  let output = "";
  let copiedTo = 0;
  let index = 0;
  while (index < text.length) {
    if (reach[index] <= index) {
      index++;
      continue;
    }
    let end = reach[index];
    for (let inside = index + 1; inside < end; inside++) end = Math.max(end, reach[inside]);
    output += text.slice(copiedTo, index) + redactionMarker;
    index = end;
    copiedTo = end;
  }
  return output + text.slice(copiedTo);
}
