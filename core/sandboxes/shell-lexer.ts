/**
 * A small, deliberately conservative lexer for the POSIX shell language, used by the command
 * allowlist. Exec runs every command through `/bin/sh -c`, so the allowlist must see the words
 * the shell will see. Constructs whose result cannot be known before running them (command and
 * process substitution, arithmetic, here-documents, subshells, assigning parameter expansions)
 * make lexing fail with a reason instead of being guessed at.
 */

export interface ShellWord {
  kind: "word";
  /** The text after quote removal; parameter expansions are kept as written (`$HOME`). */
  value: string;
  /** Contains a parameter expansion anywhere outside single quotes, so its real value is unknown. */
  expands: boolean;
  /**
   * Contains an unquoted expansion, glob, brace or leading tilde: the shell may split it into
   * several words or replace it with file names.
   */
  unquotedExpansion: boolean;
  /** Whether any part was quoted or escaped (a quoted `if` or `FOO=1` is an ordinary word). */
  quoted: boolean;
  /** Length of `value` before the first quoted or escaped character. */
  unquotedPrefixLength: number;
  /**
   * Length of the start of `value` that is fixed text, before the first expansion, glob, brace
   * or leading tilde: a word whose fixed start is not `-` cannot turn into an option.
   */
  fixedPrefixLength: number;
  /** Contains an unquoted parameter expansion: the shell may split it into several words, or none. */
  splits: boolean;
}

export interface ShellOperator {
  kind: "operator";
  value: string;
}

export type ShellToken = ShellWord | ShellOperator;

export type LexResult = { ok: true; tokens: ShellToken[] } | { ok: false; reason: string };

// Longest first, so `&&` wins over `&` and `>>` over `>`.
const operators = [
  "<<<",
  "<<-",
  "&>>",
  "&&",
  "||",
  ";;",
  "|&",
  "&>",
  ">>",
  "<<",
  "<>",
  ">|",
  ">&",
  "<&",
  ";",
  "&",
  "|",
  "<",
  ">",
  "(",
  ")",
];
const operatorStart = new Set(";&|<>()");
const globCharacters = new Set("*?[]");
// Brace expansion (bash, zsh) needs a comma or a range inside: `{a,b}`, `{1..3}`; `{}` stays literal.
const braceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/;

class LexError extends Error {}

interface WordBuilder {
  value: string;
  /** The unquoted characters as written, quoted parts replaced by a NUL, to spot brace expansion. */
  unquotedText: string;
  expands: boolean;
  unquotedExpansion: boolean;
  quoted: boolean;
  unquotedPrefixLength: number;
  fixedPrefixLength: number;
  /** Where in `value` the first unquoted `{` is, in case it starts a brace expansion. */
  firstUnquotedBrace: number;
  splits: boolean;
}

export function lexShell(source: string): LexResult {
  try {
    return { ok: true, tokens: lex(source) };
  } catch (error) {
    if (error instanceof LexError) return { ok: false, reason: error.message };
    throw error;
  }
}

function lex(source: string): ShellToken[] {
  if (source.includes("\0")) throw new LexError("the command contains a NUL byte");
  const tokens: ShellToken[] = [];
  let word: WordBuilder | null = null;
  let index = 0;

  const current = (): WordBuilder => {
    word ??= {
      value: "",
      unquotedText: "",
      expands: false,
      unquotedExpansion: false,
      quoted: false,
      unquotedPrefixLength: -1,
      fixedPrefixLength: -1,
      firstUnquotedBrace: -1,
      splits: false,
    };
    return word;
  };
  const markQuoted = (builder: WordBuilder): void => {
    if (builder.unquotedPrefixLength < 0) builder.unquotedPrefixLength = builder.value.length;
    builder.quoted = true;
    builder.unquotedText += "\0";
  };
  const endWord = (): void => {
    if (word === null) return;
    const { unquotedPrefixLength, unquotedText, fixedPrefixLength, firstUnquotedBrace, ...rest } = word;
    const braces = braceExpansion.test(unquotedText);
    const fixedEnd = fixedPrefixLength < 0 ? word.value.length : fixedPrefixLength;
    tokens.push({
      kind: "word",
      ...rest,
      unquotedExpansion: rest.unquotedExpansion || braces,
      unquotedPrefixLength: unquotedPrefixLength < 0 ? word.value.length : unquotedPrefixLength,
      fixedPrefixLength: braces ? Math.min(fixedEnd, firstUnquotedBrace) : fixedEnd,
    });
    word = null;
  };

  while (index < source.length) {
    const character = source[index];
    if (character === "\\") {
      const next = source[index + 1];
      if (next === undefined) throw new LexError("the command ends with a lone backslash");
      index += 2;
      if (next === "\n") continue; // line continuation
      const builder = current();
      markQuoted(builder);
      builder.value += next;
      continue;
    }
    if (character === "'") {
      const close = source.indexOf("'", index + 1);
      if (close < 0) throw new LexError("the command has an unmatched single quote");
      const builder = current();
      markQuoted(builder);
      builder.value += source.slice(index + 1, close);
      index = close + 1;
      continue;
    }
    if (character === '"') {
      const builder = current();
      markQuoted(builder);
      index = lexDoubleQuoted(source, index + 1, builder);
      continue;
    }
    if (character === "`") throw new LexError("command substitution with backticks is not allowed");
    if (character === "$") {
      const builder = current();
      const expansion = lexDollar(source, index);
      if (expansion.isExpansion) {
        markUnfixed(builder);
        builder.expands = true;
        builder.unquotedExpansion = true;
        builder.splits = true;
      }
      builder.value += expansion.text;
      index = expansion.end;
      continue;
    }
    if (character === " " || character === "\t") {
      endWord();
      index += 1;
      continue;
    }
    if (character === "\n") {
      endWord();
      tokens.push({ kind: "operator", value: "\n" });
      index += 1;
      continue;
    }
    if (character === "#" && word === null) {
      // A comment runs to the end of the line; the newline itself still separates commands.
      const newline = source.indexOf("\n", index);
      index = newline < 0 ? source.length : newline;
      continue;
    }
    if (operatorStart.has(character)) {
      if ((character === "<" || character === ">") && source[index + 1] === "(") {
        throw new LexError("process substitution <( … ) / >( … ) is not allowed");
      }
      const pending = word as WordBuilder | null;
      if (
        pending !== null &&
        (character === "<" || character === ">") &&
        !pending.quoted &&
        !pending.expands &&
        /^\d+$/.test(pending.value)
      ) {
        word = null; // a file descriptor number such as the 2 of 2>&1
      }
      endWord();
      const operator = operators.find((candidate) => source.startsWith(candidate, index))!;
      if (operator === "(" || operator === ")") {
        throw new LexError("subshells, groups and function definitions with ( ) are not allowed");
      }
      if (operator === "<<" || operator === "<<-" || operator === "<<<") {
        throw new LexError("here-documents and here-strings are not allowed");
      }
      tokens.push({ kind: "operator", value: operator });
      index += operator.length;
      continue;
    }
    const builder = current();
    if (globCharacters.has(character) || (character === "~" && builder.value === "" && !builder.quoted)) {
      markUnfixed(builder);
      builder.unquotedExpansion = true;
    }
    if (character === "{" && builder.firstUnquotedBrace < 0)
      builder.firstUnquotedBrace = builder.value.length;
    builder.value += character;
    builder.unquotedText += character;
    index += 1;
  }
  endWord();
  return tokens;
}

/** The fixed text of the word ends here: what follows depends on an expansion or on file names. */
function markUnfixed(builder: WordBuilder): void {
  if (builder.fixedPrefixLength < 0) builder.fixedPrefixLength = builder.value.length;
}

/** Lexes the inside of "…" starting after the opening quote; returns the index after the closing quote. */
function lexDoubleQuoted(source: string, start: number, builder: WordBuilder): number {
  let index = start;
  while (index < source.length) {
    const character = source[index];
    if (character === '"') return index + 1;
    if (character === "\\") {
      const next = source[index + 1];
      if (next === undefined) break;
      if (next === "\n") {
        index += 2;
        continue;
      }
      builder.value += '$`"\\'.includes(next) ? next : `\\${next}`;
      index += 2;
      continue;
    }
    if (character === "`") throw new LexError("command substitution with backticks is not allowed");
    if (character === "$") {
      const expansion = lexDollar(source, index);
      if (expansion.isExpansion) {
        markUnfixed(builder);
        builder.expands = true;
        // "$@" becomes one word per positional parameter even inside double quotes.
        if (/^\$\{?@/.test(expansion.text)) builder.splits = true;
      }
      builder.value += expansion.text;
      index = expansion.end;
      continue;
    }
    builder.value += character;
    index += 1;
  }
  throw new LexError("the command has an unmatched double quote");
}

interface DollarExpansion {
  text: string;
  end: number;
  isExpansion: boolean;
}

function lexDollar(source: string, index: number): DollarExpansion {
  const next = source[index + 1];
  if (next === "(") {
    throw new LexError("command substitution $( … ) and arithmetic expansion $(( … )) are not allowed");
  }
  if (next === "[") throw new LexError("arithmetic expansion $[ … ] is not allowed");
  if (next === "{") return lexBracedParameter(source, index);
  if (next !== undefined && /[A-Za-z_]/.test(next)) {
    let end = index + 1;
    while (end < source.length && /\w/.test(source[end])) end += 1;
    return { text: source.slice(index, end), end, isExpansion: true };
  }
  if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
    return { text: source.slice(index, index + 2), end: index + 2, isExpansion: true };
  }
  // $'…' and $"…" mean different things in bash and dash: treat them as unknown values.
  if (next === "'" || next === '"') return { text: "$", end: index + 1, isExpansion: true };
  return { text: "$", end: index + 1, isExpansion: false };
}

/**
 * `${…}`: allowed only as a plain read. `=` (`${X=value}`, `${X:=value}`) assigns, which could set
 * LD_PRELOAD or PATH for a later allowed command; `@` (bash `${X@P}`) and `[` (array subscripts,
 * evaluated arithmetically) can run command substitutions hidden in variable values.
 */
function lexBracedParameter(source: string, index: number): DollarExpansion {
  let depth = 0;
  let position = index + 1;
  while (position < source.length) {
    const character = source[position];
    if (character === "\\") {
      position += 2;
      continue;
    }
    if (character === "`" || (character === "$" && source[position + 1] === "(")) {
      throw new LexError(`command substitution inside \${ … } is not allowed`);
    }
    if (character === "{") depth += 1;
    if (character === "}") {
      depth -= 1;
      if (depth === 0) {
        const body = source.slice(index + 2, position);
        if (/[=@[]/.test(body)) {
          throw new LexError(
            `parameter expansions that assign or evaluate (\${X=…}, \${X@…}, \${X[…]}) are not allowed`,
          );
        }
        return { text: source.slice(index, position + 1), end: position + 1, isExpansion: true };
      }
    }
    position += 1;
  }
  throw new LexError(`the command has an unterminated \${`);
}
