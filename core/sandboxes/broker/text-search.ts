/**
 * Exact string search in linear time (Knuth–Morris–Pratt), for redaction over bodies up to the
 * broker's 1 MiB cap: a search never backtracks over the text, whatever the pattern and the text
 * (String.prototype.indexOf promises no such bound).
 */

export interface SearchPattern {
  text: string;
  /** The pattern's UTF-16 code units: comparing numbers is several times faster than one-character strings. */
  codes: Uint16Array;
  /** failure[i]: the length of the longest proper prefix of text[0..i] that is also its suffix. */
  failure: Int32Array;
}

export function compilePattern(text: string): SearchPattern {
  const failure = new Int32Array(text.length);
  for (let index = 1, matched = 0; index < text.length; index++) {
    while (matched > 0 && text[index] !== text[matched]) matched = failure[matched - 1];
    if (text[index] === text[matched]) matched++;
    failure[index] = matched;
  }
  const codes = new Uint16Array(text.length);
  for (let index = 0; index < text.length; index++) codes[index] = text.charCodeAt(index);
  return { text, codes, failure };
}

/** Calls `onMatch(start)` for every occurrence (overlapping ones too) of the pattern in text[from, to). */
export function forEachMatch(
  text: string,
  pattern: SearchPattern,
  onMatch: (start: number) => void,
  from = 0,
  to = text.length,
): void {
  const { codes: needle, failure } = pattern;
  if (needle.length === 0 || to - from < needle.length) return;
  const first = pattern.text[0];
  let matched = 0;
  for (let index = from; index < to; index++) {
    if (matched === 0) {
      // Outside a partial match, skip to the next occurrence of the first character: a
      // one-character indexOf is a plain forward scan, so the whole stays linear, and fast.
      index = text.indexOf(first, index);
      if (index === -1 || index >= to) return;
    }
    const code = text.charCodeAt(index);
    while (matched > 0 && code !== needle[matched]) matched = failure[matched - 1];
    if (code === needle[matched]) matched++;
    if (matched === needle.length) {
      onMatch(index + 1 - needle.length);
      matched = failure[matched - 1];
    }
  }
}

/** The length of the longest end of text[from, to) that is a proper start of the pattern. */
export function longestPrefixAtEnd(text: string, pattern: SearchPattern, from = 0, to = text.length): number {
  const { codes: needle, failure } = pattern;
  let matched = 0;
  for (let index = Math.max(from, to - needle.length); index < to; index++) {
    const code = text.charCodeAt(index);
    while (matched > 0 && code !== needle[matched]) matched = failure[matched - 1];
    if (code === needle[matched]) matched++;
    if (matched === needle.length) matched = failure[matched - 1];
  }
  return matched;
}
