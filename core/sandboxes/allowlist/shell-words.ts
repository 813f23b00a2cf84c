/**
 * A shell word as the allowlist sees it, and the builder the lexer (shell-lexer.ts) fills in as it
 * reads the characters of one: the text after quote removal, and what is known about it before
 * the shell expands it (quoted parts, expansions, globs, a fixed start that cannot become an
 * option, whether dash would take it for a reserved word or an assignment).
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
  /** Written without any quoting or expansion, so it can be a reserved word (`if`, `{`, `!`). */
  literal: boolean;
  /** An assignment as dash sees one: an unquoted name, then an unquoted `=` (`A=1`, not `"A"=1`). */
  assignment: boolean;
}

const globCharacters = new Set("*?[]");
// Brace expansion (bash, zsh) needs a comma or a range inside: `{a,b}`, `{1..3}`; `{}` stays literal.
const braceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/;

export interface WordBuilder {
  value: string;
  /** The unquoted characters as written, quoted parts replaced by a NUL, to spot brace expansion. */
  unquotedText: string;
  expands: boolean;
  unquotedExpansion: boolean;
  quoted: boolean;
  unquotedPrefixLength: number;
  fixedPrefixLength: number;
  firstUnquotedBrace: number;
  splits: boolean;
  /** Only plain unquoted characters so far (dash's word text has no control characters). */
  plain: boolean;
  /** The plain characters up to the first quote, escape or expansion: an assignment's name. */
  plainPrefix: string;
}

export const newBuilder = (): WordBuilder => ({
  value: "",
  unquotedText: "",
  expands: false,
  unquotedExpansion: false,
  quoted: false,
  unquotedPrefixLength: -1,
  fixedPrefixLength: -1,
  firstUnquotedBrace: -1,
  splits: false,
  plain: true,
  plainPrefix: "",
});

export const markQuoted = (builder: WordBuilder): void => {
  if (builder.unquotedPrefixLength < 0) builder.unquotedPrefixLength = builder.value.length;
  builder.quoted = true;
  builder.plain = false;
  builder.unquotedText += "\0";
};
export const markUnfixed = (builder: WordBuilder): void => {
  if (builder.fixedPrefixLength < 0) builder.fixedPrefixLength = builder.value.length;
};
export const addPlain = (builder: WordBuilder, character: string): void => {
  if (globCharacters.has(character) || (character === "~" && builder.value === "" && !builder.quoted)) {
    markUnfixed(builder);
    builder.unquotedExpansion = true;
  }
  if (character === "{" && builder.firstUnquotedBrace < 0) builder.firstUnquotedBrace = builder.value.length;
  if (builder.plain) builder.plainPrefix += character;
  builder.value += character;
  builder.unquotedText += character;
};

export const finishWord = (builder: WordBuilder): ShellWord => {
  const braces = braceExpansion.test(builder.unquotedText);
  const fixedEnd = builder.fixedPrefixLength < 0 ? builder.value.length : builder.fixedPrefixLength;
  return {
    kind: "word",
    value: builder.value,
    expands: builder.expands,
    unquotedExpansion: builder.unquotedExpansion || braces,
    quoted: builder.quoted,
    unquotedPrefixLength:
      builder.unquotedPrefixLength < 0 ? builder.value.length : builder.unquotedPrefixLength,
    fixedPrefixLength: braces ? Math.min(fixedEnd, builder.firstUnquotedBrace) : fixedEnd,
    splits: builder.splits,
    literal: builder.plain,
    assignment: /^[A-Za-z_][A-Za-z0-9_]*=/.test(builder.plainPrefix),
  };
};
