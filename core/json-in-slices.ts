/**
 * `JSON.parse` for texts whose size a client chooses, in slices (event-loop-turns.ts). One
 * `JSON.parse` of a 16 MiB import body held the thread serving every account for 125–350 ms.
 *
 * One pass over the text finds its structure: strings are skipped with `indexOf`, so a body made
 * of long texts costs a few thousand steps. Every value of at most `pieceCharacters` whose
 * container is larger is parsed by `JSON.parse` together with its small neighbours, a piece at a
 * time; long strings are parsed in pieces and joined. Nothing is parsed twice, the text is read
 * once, and the values are those `JSON.parse` gives: the same own `__proto__` keys, the last of
 * duplicate keys, the same numbers. What `JSON.parse` refuses is refused here too, with a
 * `SyntaxError`; and three things it takes, which no request needs: nesting deeper than
 * `deepestNesting`, containers wider than `widestContainer`, and a number longer than a piece.
 */
import { createSlices, type Slices } from "./event-loop-turns.ts";

/** Texts and values up to this many characters go to `JSON.parse` whole: well within a slice. */
export const pieceCharacters = 64 * 1024;
/** Nesting kept track of; deeper texts are refused (a request body has no use for more). */
export const deepestNesting = 1_000;
/** Members of one array or object; more are refused (the largest request list is 2,000). */
export const widestContainer = 100_000;

/**
 * Valid JSON past what is followed: nested deeper than `deepestNesting`, or a container of more
 * than `widestContainer` members (one object's table of 1.5 million keys grew in 150 ms steps).
 */
export class JsonLimitError extends SyntaxError {
  readonly type: "too_deep" | "too_wide";
  constructor(type: "too_deep" | "too_wide", position: number) {
    super(
      type === "too_deep"
        ? `JSON nested deeper than ${deepestNesting} levels at position ${position}`
        : `JSON container of more than ${widestContainer} members at position ${position}`,
    );
    this.type = type;
  }
}

export interface JsonInSlicesOptions {
  /** Smaller pieces, for tests that walk every path with short texts. */
  pieceCharacters?: number;
  slices?: Slices;
}

/** A container being read: its raw children not yet parsed run from runStart to runEnd. */
interface Frame {
  array: boolean;
  start: number;
  /** The parsed part, once the container is too large to be parsed whole; else null. */
  value: unknown[] | Record<string, unknown> | null;
  runStart: number;
  runEnd: number;
  /** The member being read (objects): its key's span and where its value starts. */
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  members: number;
}

/** What the reader expects next. */
type Expect = "value" | "valueOrClose" | "key" | "keyOrClose" | "colon" | "commaOrClose";

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const colon = 0x3a;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

/** Steps of the reader between looks at the slice's clock. */
const stepsBetweenPauses = 4_096;

export async function parseJsonInSlices(text: string, options: JsonInSlicesOptions = {}): Promise<unknown> {
  // Never so small that an escape (six characters at most) has no room in a piece.
  const piece = Math.max(16, options.pieceCharacters ?? pieceCharacters);
  if (text.length <= piece) return JSON.parse(text);
  const slices = options.slices ?? createSlices();
  let steps = 0;
  const due = () => ++steps % stepsBetweenPauses === 0;

  /** The end of the string starting at `start` (its closing quote + 1); a promise if it is long. */
  const stringEnd = (start: number): number | Promise<number> => {
    let from = start + 1;
    // Most strings end at the first quote; one with many escaped quotes is followed in slices.
    for (let quotes = 0; quotes < 64; quotes++) {
      const end = closingQuote(text, from);
      if (end >= 0) return end;
      from = -end;
    }
    return (async () => {
      for (;;) {
        const end = closingQuote(text, from);
        if (end >= 0) return end;
        from = -end;
        await slices.pause();
      }
    })();
  };

  /** A string of any length, parsed a piece at a time and joined. */
  const parseString = async (start: number, end: number): Promise<string> => {
    if (end - start <= piece) return JSON.parse(text.slice(start, end));
    const parts: string[] = [];
    let from = start + 1;
    while (from < end - 1) {
      const cut = safeCut(text, from, Math.min(from + piece, end - 1));
      parts.push(JSON.parse(`"${text.slice(from, cut)}"`));
      from = cut;
      await slices.pause();
    }
    return parts.join("");
  };

  const parseOne = (start: number, end: number): unknown => JSON.parse(text.slice(start, end));

  const containerValue = (frame: Frame): unknown[] | Record<string, unknown> => {
    frame.value ??= frame.array ? [] : {};
    return frame.value;
  };

  /** Parses the frame's waiting raw children with one `JSON.parse` and adds them. */
  const flush = async (frame: Frame): Promise<void> => {
    if (frame.runStart < 0) return;
    const run = text.slice(frame.runStart, frame.runEnd);
    frame.runStart = -1;
    const value = containerValue(frame);
    if (Array.isArray(value)) {
      const items = JSON.parse(`[${run}]`) as unknown[];
      for (const item of items) value.push(item);
    } else {
      const members = JSON.parse(`{${run}}`) as Record<string, unknown>;
      for (const key of Object.keys(members)) define(value, key, members[key]);
    }
    await slices.pause();
  };

  /** A large child (a container or string too long to parse with others) joins its container. */
  const addParsed = async (frame: Frame, start: number, end: number, parsed?: { value: unknown }) => {
    await flush(frame);
    const value = containerValue(frame);
    const child = parsed === undefined ? parseOne(start, end) : parsed.value;
    if (Array.isArray(value)) value.push(child);
    else define(value, await parseString(frame.keyStart, frame.keyEnd), child);
  };

  const stack: Frame[] = [];
  let root: { value: unknown } | undefined;
  let expect: Expect = "value";
  let position = skipSpace(text, 0);

  /**
   * A value from start to end is read. It is the text's value, or joins its container: a small
   * one (`parsed` undefined) waits in the container's run, to be parsed with its neighbours.
   */
  const complete = (start: number, end: number, parsed?: { value: unknown }): Promise<void> | undefined => {
    const frame = stack.at(-1);
    if (frame === undefined) {
      root = parsed ?? { value: parseOne(start, end) };
      return undefined;
    }
    if (++frame.members > widestContainer) throw new JsonLimitError("too_wide", start);
    const childStart = frame.array ? start : frame.valueStart;
    if (parsed !== undefined || (!frame.array && frame.keyEnd - frame.keyStart > piece))
      return addParsed(frame, childStart, end, parsed);
    if (frame.runStart < 0) frame.runStart = frame.array ? start : frame.keyStart;
    frame.runEnd = end;
    return frame.runEnd - frame.runStart > piece ? flush(frame) : undefined;
  };

  while (root === undefined) {
    if (due()) await slices.pause();
    position = skipSpace(text, position);
    if (position >= text.length) throw new SyntaxError("Unexpected end of JSON input");
    const code = text.charCodeAt(position);
    const frame = stack.at(-1);
    const closes = code === (frame?.array ? closeBracket : closeBrace);
    if (
      frame &&
      closes &&
      (expect === "commaOrClose" || expect === "valueOrClose" || expect === "keyOrClose")
    ) {
      stack.pop();
      const end = position + 1;
      position = end;
      const small = frame.value === null && end - frame.start <= piece;
      if (!small) await flush(frame);
      const added = complete(frame.start, end, small ? undefined : { value: containerValue(frame) });
      if (added) await added;
      expect = "commaOrClose";
      continue;
    }
    switch (expect) {
      case "commaOrClose":
        if (code !== comma) throw unexpected(text, position);
        position++;
        expect = frame?.array ? "value" : "key";
        continue;
      case "colon":
        if (code !== colon) throw unexpected(text, position);
        position++;
        expect = "value";
        continue;
      case "key":
      case "keyOrClose": {
        if (code !== quote || frame === undefined) throw unexpected(text, position);
        frame.keyStart = position;
        const end = stringEnd(position);
        frame.keyEnd = typeof end === "number" ? end : await end;
        position = frame.keyEnd;
        expect = "colon";
        continue;
      }
      case "value":
      case "valueOrClose": {
        if (frame && !frame.array) frame.valueStart = position;
        if (code === openBrace || code === openBracket) {
          if (stack.length >= deepestNesting) throw new JsonLimitError("too_deep", position);
          const array = code === openBracket;
          stack.push({
            array,
            start: position,
            value: null,
            runStart: -1,
            runEnd: -1,
            keyStart: -1,
            keyEnd: -1,
            valueStart: -1,
            members: 0,
          });
          position++;
          expect = array ? "valueOrClose" : "keyOrClose";
          continue;
        }
        const start = position;
        if (code === quote) {
          const end = stringEnd(start);
          position = typeof end === "number" ? end : await end;
          const parsed = position - start > piece ? { value: await parseString(start, position) } : undefined;
          const added = complete(start, position, parsed);
          if (added) await added;
          expect = "commaOrClose";
          continue;
        }
        // A number, true, false or null: up to the next delimiter; JSON.parse judges it.
        while (position < text.length && !isDelimiter(text.charCodeAt(position))) {
          position++;
          if (due()) await slices.pause();
        }
        if (position === start) throw unexpected(text, position);
        // JSON.parse takes 140 ms over a 16 MiB number, and no request needs one over a piece.
        if (position - start > piece)
          throw new SyntaxError(`Number longer than ${piece} characters at position ${start}`);
        const added = complete(start, position);
        if (added) await added;
        expect = "commaOrClose";
        continue;
      }
    }
  }
  if (skipSpace(text, position) < text.length) throw unexpected(text, skipSpace(text, position));
  return root.value;
}

/**
 * The end (closing quote + 1) of the string whose inside starts at or before `from`, if its next
 * quote closes it; else minus where to look on (past an escaped quote).
 */
function closingQuote(text: string, from: number): number {
  const close = text.indexOf('"', from);
  if (close < 0) throw new SyntaxError("Unterminated string in JSON");
  let backslashes = 0;
  while (text.charCodeAt(close - 1 - backslashes) === backslash) backslashes++;
  return backslashes % 2 === 0 ? close + 1 : -(close + 1);
}

/** As JSON.parse makes it: an own property even for `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function skipSpace(text: string, position: number): number {
  for (;;) {
    const code = text.charCodeAt(position);
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return position;
    position++;
  }
}

function isDelimiter(code: number): boolean {
  return (
    code === comma ||
    code === closeBrace ||
    code === closeBracket ||
    code === colon ||
    code === quote ||
    code === openBrace ||
    code === openBracket ||
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d
  );
}

/**
 * A place at or before `want` (after `from`) to cut a string's inside without splitting an escape
 * (`\n`, `\"`, `\uXXXX`): each side is then a string of its own.
 */
function safeCut(text: string, from: number, want: number): number {
  let cut = want;
  // An escape is at most six characters; step back over any that `cut` would split.
  for (let start = Math.max(from, want - 5); start < want; start++) {
    if (text.charCodeAt(start) !== backslash) continue;
    let backslashes = 0;
    while (start - 1 - backslashes >= from && text.charCodeAt(start - 1 - backslashes) === backslash)
      backslashes++;
    // Escaped itself (the second of `\\`): not the start of an escape.
    if (backslashes % 2 === 1) continue;
    const length = text.charCodeAt(start + 1) === 0x75 ? 6 : 2;
    if (start + length > want) {
      cut = start;
      break;
    }
    start += length - 1;
  }
  return cut > from ? cut : want;
}

function unexpected(text: string, position: number): SyntaxError {
  const found = position < text.length ? `token '${text[position]}'` : "end of JSON input";
  return new SyntaxError(`Unexpected ${found} at position ${position}`);
}
