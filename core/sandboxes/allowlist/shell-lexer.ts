/**
 * The tokenizer of dash (/bin/sh in the sandboxes), for the command allowlist: exec runs every
 * command through `/bin/sh -c`, so the allowlist must cut the string into the words, operators
 * and redirections dash cuts it into. This follows dash's parser.c (xxreadtoken, readtoken1,
 * parseredir, parsesub, checkend) character by character, including its quirks: `&>` is `&`
 * then `>`, only a single unquoted digit is a file descriptor (`12>f` is the word `12`), a
 * backslash-newline vanishes everywhere but inside single quotes, and a here-document ends
 * only at a line that is exactly its delimiter. Whatever could run a program while the word is
 * expanded (command substitution, arithmetic, assigning `${X=…}`) or is read differently by
 * dash versions (`$'…'`, blanks outside ASCII) makes lexing fail with a reason.
 */

import {
  addPlain,
  finishWord,
  markQuoted,
  markUnfixed,
  newBuilder,
  type ShellWord,
  type WordBuilder,
} from "./shell-words.ts";

export type { ShellWord } from "./shell-words.ts";

export type RedirectionOperator = ">" | ">>" | ">|" | ">&" | "<" | "<<" | "<<-" | "<&" | "<>";
export type ControlOperator = ";" | ";;" | "&" | "&&" | "|" | "||" | "(" | ")";

export type ShellToken =
  | { kind: "word"; word: ShellWord }
  | { kind: "redirection"; operator: RedirectionOperator; fd: number | null }
  | { kind: "operator"; value: ControlOperator }
  | { kind: "newline" }
  | { kind: "end" };

/** Dash would refuse the input (a syntax error), or the allowlist cannot analyse it. */
export class ShellSyntaxError extends Error {}

export interface ShellLexer {
  /** The next token; `delimiter` when it is the word after `<<` (dash's CHKEOFMARK). */
  next(delimiter: boolean): ShellToken;
  /** Reads a here-document body, as dash does after the newline that ends its command line. */
  readHeredoc(delimiter: string, stripTabs: boolean, expands: boolean): void;
}

const end = "";
// Characters that end an unquoted word (dash's CSPCL class), besides the newline.
const wordEnders = new Set([..." \t<>();&|"]);
const nameStart = /^[A-Za-z_]$/;
const nameCharacter = /^[A-Za-z0-9_]$/;
const specialParameters = new Set("!#$*-?@0123456789");
// `${…}` bodies limited to reads such as `${X}`, `${X:-default}`, `${#X}`, `${X%.c}`: no `=` (which
// assigns), no quotes, `$` or braces (whose nesting rules differ between shells), no blanks.
const simpleBracedBody = /^[A-Za-z0-9_./:,+*?^%#@!-]*$/;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Blanks outside ASCII split words in dash 0.5.13 (in a UTF-8 locale) but not in 0.5.12.
const unicodeBlanks = /[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

export function createShellLexer(source: string): ShellLexer {
  if (source.includes("\0")) throw new ShellSyntaxError("the command contains a NUL byte");
  // A lone surrogate reaches the shell as U+FFFD, so two different ones would look equal to dash.
  if (loneSurrogate.test(source)) throw new ShellSyntaxError("the command is not well-formed Unicode");
  if (unicodeBlanks.test(source)) {
    throw new ShellSyntaxError(
      "the command contains a blank character outside ASCII, which shells split differently",
    );
  }
  let index = 0;
  // pgetc: one character, or "" past the end (the index still moves, so unread() stays simple).
  const read = (): string => {
    const character = source[index] ?? end;
    index += 1;
    return character;
  };
  const unread = (): void => {
    index -= 1;
  };
  // pgetc_eatbnl: a backslash-newline is removed before the character is seen.
  const readJoined = (): string => {
    for (;;) {
      const character = read();
      if (character !== "\\") return character;
      if (read() !== "\n") {
        unread();
        return character;
      }
    }
  };

  /** parsesub: after a `$`, which stays a plain character unless a name, `{` or `(` follows. */
  const readDollar = (builder: WordBuilder, quoted: boolean, delimiter: boolean): void => {
    if (delimiter)
      throw new ShellSyntaxError("here-document delimiters with $ are read differently by shells");
    const next = readJoined();
    if (next === "(") {
      throw new ShellSyntaxError(
        "command substitution $( … ) and arithmetic expansion $(( … )) are not allowed",
      );
    }
    if (next === "'" && !quoted) {
      throw new ShellSyntaxError("$'…' quoting is read differently by shells (dash 0.5.12 has none)");
    }
    let text: string;
    if (next === "{") {
      let body = "";
      for (let character = readJoined(); character !== "}"; character = readJoined()) {
        if (character === end) throw new ShellSyntaxError("the command has an unterminated ${");
        if (!simpleBracedBody.test(character)) {
          throw new ShellSyntaxError(
            `parameter expansions other than plain reads (\${X}, \${X:-word}, \${#X}, \${X%pattern}) are not allowed; \${X=…} assigns`,
          );
        }
        body += character;
      }
      text = `\${${body}}`;
      if (body.startsWith("@")) builder.splits = true;
    } else if (nameStart.test(next)) {
      text = `$${next}`;
      for (let character = readJoined(); nameCharacter.test(character); character = readJoined())
        text += character;
      unread();
    } else if (specialParameters.has(next)) {
      text = `$${next}`;
      if (next === "@") builder.splits = true;
    } else {
      unread();
      if (builder.plain && !quoted) builder.plainPrefix += "$";
      builder.value += "$";
      if (!quoted) builder.unquotedText += "$";
      return;
    }
    markUnfixed(builder);
    builder.plain = false;
    builder.expands = true;
    if (!quoted) {
      builder.unquotedExpansion = true;
      builder.splits = true;
    }
    builder.value += text;
  };

  /** The inside of "…", after the opening quote (DQSYNTAX). */
  const readDoubleQuoted = (builder: WordBuilder, delimiter: boolean): void => {
    markQuoted(builder);
    for (;;) {
      const character = readJoined();
      if (character === end) throw new ShellSyntaxError("unterminated quoted string");
      if (character === '"') return;
      if (character === "\\") {
        const next = read();
        if (next === end) {
          unread();
          builder.value += "\\";
        } else builder.value += '$`"\\'.includes(next) ? next : `\\${next}`;
      } else if (character === "`") {
        if (delimiter)
          throw new ShellSyntaxError("here-document delimiters with ` are read differently by shells");
        throw new ShellSyntaxError("command substitution with backticks is not allowed");
      } else if (character === "$") readDollar(builder, true, delimiter);
      else builder.value += character;
    }
  };

  /** readtoken1 in BASESYNTAX: a word, or a redirection when the word is empty or one digit. */
  const readWord = (first: string, delimiter: boolean): ShellToken => {
    const builder = newBuilder();
    let character = first;
    while (character !== end && character !== "\n" && !wordEnders.has(character)) {
      if (character === "\\") {
        const next = read();
        if (next === end) {
          // dash keeps a backslash at the very end as a literal character.
          unread();
          markQuoted(builder);
          builder.value += "\\";
        } else {
          markQuoted(builder);
          builder.value += next;
        }
      } else if (character === "'") {
        markQuoted(builder);
        for (let quoted = read(); quoted !== "'"; quoted = read()) {
          if (quoted === end) throw new ShellSyntaxError("unterminated quoted string");
          builder.value += quoted;
        }
      } else if (character === '"') readDoubleQuoted(builder, delimiter);
      else if (character === "$") readDollar(builder, false, delimiter);
      else if (character === "`") {
        if (delimiter)
          throw new ShellSyntaxError("here-document delimiters with ` are read differently by shells");
        throw new ShellSyntaxError("command substitution with backticks is not allowed");
      } else addPlain(builder, character);
      character = readJoined();
    }
    const descriptor = builder.plain && /^[0-9]?$/.test(builder.value);
    if ((character === ">" || character === "<") && descriptor) {
      return readRedirection(character, builder.value === "" ? null : Number(builder.value));
    }
    unread();
    return { kind: "word", word: finishWord(builder) };
  };

  const readRedirection = (first: string, fd: number | null): ShellToken => {
    const next = readJoined();
    let operator: RedirectionOperator;
    if (first === ">") {
      if (next === ">") operator = ">>";
      else if (next === "|") operator = ">|";
      else if (next === "&") operator = ">&";
      else {
        unread();
        operator = ">";
      }
    } else if (next === "<") {
      if (readJoined() === "-") operator = "<<-";
      else {
        unread();
        operator = "<<";
      }
    } else if (next === "&") operator = "<&";
    else if (next === ">") operator = "<>";
    else {
      unread();
      operator = "<";
    }
    return { kind: "redirection", operator, fd };
  };

  const next = (delimiter: boolean): ShellToken => {
    for (;;) {
      const character = readJoined();
      if (character === " " || character === "\t") continue;
      if (character === "#") {
        let skipped = read();
        while (skipped !== "\n" && skipped !== end) skipped = read();
        unread();
        continue;
      }
      if (character === "\n") return { kind: "newline" };
      if (character === end) return { kind: "end" };
      for (const [single, double] of [
        ["&", "&&"],
        ["|", "||"],
        [";", ";;"],
      ] as const) {
        if (character !== single) continue;
        if (readJoined() === single) return { kind: "operator", value: double };
        unread();
        return { kind: "operator", value: single };
      }
      if (character === "(" || character === ")") return { kind: "operator", value: character };
      return readWord(character, delimiter);
    }
  };

  /**
   * readtoken1 with an end mark (checkend): each line, after leading tabs for `<<-`, is compared
   * with the delimiter as raw characters; only an exact match followed by a newline or the end
   * of input ends the document. An unquoted delimiter makes the body expand like "…".
   */
  const readHeredoc = (delimiter: string, stripTabs: boolean, expands: boolean): void => {
    const readBody = expands ? readJoined : read;
    let character = readBody();
    for (;;) {
      if (stripTabs) while (character === "\t") character = read();
      const lineStart = index - 1;
      let matched = true;
      // Code unit by code unit, as every other comparison here: dash compares bytes.
      for (let position = 0; position < delimiter.length; position += 1) {
        if (character !== delimiter[position]) {
          matched = false;
          break;
        }
        character = read();
      }
      if (matched && (character === "\n" || character === end)) return;
      index = lineStart + 1;
      character = source[lineStart] ?? end;
      for (;;) {
        if (character === end) return;
        if (character === "\n") break;
        if (expands && character === "\\") {
          if (read() === end) unread();
        } else if (expands && character === "`") {
          throw new ShellSyntaxError(
            "command substitution with backticks is not allowed (in a here-document)",
          );
        } else if (expands && character === "$") readDollar(newBuilder(), true, false);
        character = readBody();
      }
      character = readBody();
    }
  };

  return { next, readHeredoc };
}
