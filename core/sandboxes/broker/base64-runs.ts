/**
 * Base64 as it appears in text for the broker's redaction (secret-redaction.ts): maximal runs of
 * base64 or base64url characters, read through the line breaks and escapes that services wrap a
 * blob in, mapped onto the standard alphabet so one search finds both.
 */

export interface Base64Run {
  /** Span in the original text, from the first base64 character to the last (or its padding). */
  start: number;
  end: number;
  /** The base64 characters alone, in the standard alphabet, line breaks and escapes removed. */
  characters: string;
  /** Ended in `=` padding: the blob is whole, not cut. */
  padded: boolean;
}

/**
 * Maximal runs of base64 or base64url characters. Inside a run, line breaks (raw, JSON-escaped
 * `\n`, URL-encoded) are skipped and `\/`, `\u002B`, `%2B`, `%2F` (and the like) read as the
 * characters they escape, so a blob wrapped every 60 or 76 characters or escaped once more is
 * still one run. `=` padding ends a run. Runs shorter than `shortest` characters are left out,
 * unless they end at `keepAfter` or later.
 */
export function base64Runs(text: string, shortest: number, keepAfter: number): Base64Run[] {
  const runs: Base64Run[] = [];
  let index = 0;
  while (index < text.length) {
    if (!isStandardBase64(text.charCodeAt(index))) {
      const first = readToken(text, index);
      if (first === null || first.character === "" || first.character === "=") {
        index += first?.length ?? 1;
        continue;
      }
    }
    const start = index;
    let end = index;
    // Stretches of standard characters are taken as slices; only escapes are read one by one.
    const pieces: string[] = [];
    let stretch = index;
    let padded = false;
    while (index < text.length) {
      if (!padded && isStandardBase64(text.charCodeAt(index))) {
        index++;
        end = index;
        continue;
      }
      if (stretch < index) pieces.push(text.slice(stretch, index));
      stretch = index;
      const token = readToken(text, index);
      if (token === null || (padded && token.character !== "=")) break;
      index += token.length;
      stretch = index;
      if (token.character === "") continue;
      if (token.character === "=") padded = true;
      else pieces.push(token.character);
      end = index;
    }
    // A run too short to hold any pattern can only matter if it reaches the cut at the end.
    if (end - start < shortest && end < keepAfter) continue;
    if (stretch < index) pieces.push(text.slice(stretch, index));
    runs.push({ start, end, characters: pieces.join(""), padded });
  }
  return runs;
}

/** A-Z, a-z, 0-9, + and /. */
function isStandardBase64(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47
  );
}

/** Where the run's `position`-th base64 character sits in the text. */
export function indexOfCharacter(text: string, run: Base64Run, position: number): number {
  let index = run.start;
  for (let seen = 0; index < run.end; ) {
    const token = readToken(text, index);
    if (token === null) break;
    if (token.character !== "" && token.character !== "=" && seen++ === position) return index;
    index += token.length;
  }
  return index;
}

interface Token {
  /** The base64 character it stands for; "" for a line break, "=" for padding. */
  character: string;
  length: number;
}

function readToken(text: string, index: number): Token | null {
  const code = text.charCodeAt(index);
  const alphanumeric =
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  if (alphanumeric) return { character: text[index], length: 1 };
  switch (text[index]) {
    case "+":
    case "-":
      return { character: "+", length: 1 };
    case "/":
    case "_":
      return { character: "/", length: 1 };
    case "=":
      return { character: "=", length: 1 };
    case "\r":
    case "\n":
      return { character: "", length: 1 };
    case "\\": {
      const next = text[index + 1];
      if (next === "n" || next === "r") return { character: "", length: 2 };
      if (next === "/") return { character: "/", length: 2 };
      // JSON encoders that escape `+`, `/` or `=` as \u002B, \u002F, \u003D (.NET's default).
      const escaped =
        next === "u" ? jsonEscapes.get(text.slice(index + 2, index + 6).toUpperCase()) : undefined;
      return escaped === undefined ? null : { character: escaped, length: 6 };
    }
    case "%": {
      const escaped = urlEscapes.get(text.slice(index + 1, index + 3).toUpperCase());
      return escaped === undefined ? null : { character: escaped, length: 3 };
    }
    default:
      return null;
  }
}

const jsonEscapes = new Map([
  ["002B", "+"],
  ["002F", "/"],
  ["003D", "="],
  ["000A", ""],
  ["000D", ""],
]);

const urlEscapes = new Map([
  ["2B", "+"],
  ["2F", "/"],
  ["3D", "="],
  ["0A", ""],
  ["0D", ""],
]);
