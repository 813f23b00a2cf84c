/**
 * The grammar of dash (/bin/sh in the sandboxes), for the command allowlist: a port of dash's
 * parser.c (list, andor, pipeline, command, simplecmd, parsefname, parseheredoc, readtoken)
 * with its reserved-word rules, so every command inside compound commands (for, while, until,
 * if, case, `{ }`, `( )`) and function bodies is found where dash finds it. It returns the
 * simple commands and for-loop variables, not a tree: the allowlist checks each of them, and
 * nothing else in a parsed command starts a program. A syntax error refuses the whole string,
 * as dash would (it parses and runs a line at a time, so earlier lines would have run: the
 * allowlist refuses them too).
 */

import {
  createShellLexer,
  type ShellLexer,
  ShellSyntaxError,
  type ShellToken,
  type ShellWord,
} from "./shell-lexer.ts";

export interface SimpleCommand {
  assignments: ShellWord[];
  /** words[0] is the command name; empty for a command of assignments or redirections only. */
  words: ShellWord[];
}

export interface ParsedScript {
  commands: SimpleCommand[];
  /** Variables that `for` loops assign. */
  loopVariables: string[];
}

export type ParseResult = ({ ok: true } & ParsedScript) | { ok: false; reason: string };

// dash's tokens: operators, and reserved words once recognised (findkwd).
type Token =
  | "end"
  | "newline"
  | ";"
  | "&"
  | "&&"
  | "||"
  | "|"
  | "("
  | ")"
  | ";;"
  | "redirection"
  | "word"
  | "!"
  | "case"
  | "do"
  | "done"
  | "elif"
  | "else"
  | "esac"
  | "fi"
  | "for"
  | "if"
  | "in"
  | "then"
  | "until"
  | "while"
  | "{"
  | "}";

const reservedWords = new Set<Token>([
  "!",
  "case",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "if",
  "in",
  "then",
  "until",
  "while",
  "{",
  "}",
]);
// Tokens that end a list (dash's tokendlist).
const listEnders = new Set<Token>([
  "end",
  ")",
  ";;",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "then",
  "}",
]);
// Special builtins cannot be redefined as functions ("Bad function name").
const specialBuiltins = new Set(
  ". : break continue eval exec exit export readonly return set shift times trap unset".split(" "),
);
const goodName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const maxNesting = 100;

// checkkwd flags
const checkNewlines = 1;
const checkKeywords = 2;
const checkDelimiter = 4;

export function parseShell(source: string): ParseResult {
  try {
    return { ok: true, ...parse(createShellLexer(source)) };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, reason: error.message };
    throw error;
  }
}

function parse(lexer: ShellLexer): ParsedScript {
  const result: ParsedScript = { commands: [], loopVariables: [] };
  let lastToken: Token = "end";
  let lastWord: ShellWord | null = null;
  let lastRedirection: Extract<ShellToken, { kind: "redirection" }> | null = null;
  let pushedBack = false;
  let checkWords = 0;
  let nesting = 0;
  let heredocs: Array<{ delimiter: string; stripTabs: boolean; expands: boolean }> = [];

  const syntaxError = (): never => {
    const shown = lastToken === "word" ? (lastWord?.value ?? "") : lastToken;
    throw new ShellSyntaxError(`syntax error near ${JSON.stringify(shown)}, which /bin/sh would refuse too`);
  };
  const readRawToken = (): Token => {
    if (pushedBack) {
      pushedBack = false;
      return lastToken;
    }
    const token = lexer.next((checkWords & checkDelimiter) !== 0);
    if (token.kind === "word") {
      lastWord = token.word;
      lastToken = "word";
    } else if (token.kind === "redirection") {
      lastRedirection = token;
      lastToken = "redirection";
    } else if (token.kind === "operator") lastToken = token.value;
    else lastToken = token.kind;
    return lastToken;
  };
  const readHeredocs = (): void => {
    for (const heredoc of heredocs) lexer.readHeredoc(heredoc.delimiter, heredoc.stripTabs, heredoc.expands);
    heredocs = [];
  };
  const readToken = (): Token => {
    const flags = checkWords;
    let token = readRawToken();
    if (flags & checkNewlines) {
      while (token === "newline") {
        readHeredocs();
        checkWords = 0;
        token = readRawToken();
      }
    }
    checkWords = 0;
    if (token === "word" && lastWord?.literal && flags & checkKeywords) {
      const reserved = lastWord.value as Token;
      if (reservedWords.has(reserved)) lastToken = token = reserved;
    }
    return token;
  };
  const expect = (token: Token): void => {
    if (readToken() !== token) syntaxError();
  };
  const currentWord = (): ShellWord => lastWord as ShellWord;

  const list = (newlineFlag: number): void => {
    const checkNewline = newlineFlag & 1 ? 0 : checkNewlines;
    let flag = newlineFlag;
    for (;;) {
      checkWords = checkNewline | checkKeywords;
      let token = readToken();
      if (token === "newline") {
        readHeredocs();
        return;
      }
      if (token === "end") {
        readHeredocs();
        pushedBack = true;
        lastToken = "end";
        return;
      }
      pushedBack = true;
      if (flag === 2 && listEnders.has(token)) return;
      flag |= 2;
      andOr();
      token = readToken();
      if (token === "end") {
        readHeredocs();
        pushedBack = true;
        lastToken = "end";
        return;
      }
      if (token === "newline") pushedBack = true;
      else if (token !== "&" && token !== ";") {
        if (!checkNewline) syntaxError();
        pushedBack = true;
        return;
      }
    }
  };

  const andOr = (): void => {
    pipeline();
    for (;;) {
      const token = readToken();
      if (token !== "&&" && token !== "||") {
        pushedBack = true;
        return;
      }
      checkWords = checkNewlines | checkKeywords;
      pipeline();
    }
  };

  const pipeline = (): void => {
    if (readToken() === "!") checkWords = checkKeywords;
    else pushedBack = true;
    command();
    while (readToken() === "|") {
      checkWords = checkNewlines | checkKeywords;
      command();
    }
    pushedBack = true;
  };

  const command = (): void => {
    nesting += 1;
    if (nesting > maxNesting) throw new ShellSyntaxError("commands are nested too deeply to check");
    let closing: Token | null = null;
    switch (readToken()) {
      case "if":
        list(0);
        expect("then");
        list(0);
        while (readToken() === "elif") {
          list(0);
          expect("then");
          list(0);
        }
        if (lastToken === "else") list(0);
        else pushedBack = true;
        closing = "fi";
        break;
      case "while":
      case "until":
        list(0);
        expect("do");
        list(0);
        closing = "done";
        break;
      case "for":
        forLoop();
        closing = "done";
        break;
      case "case":
        caseCommand();
        break;
      case "(":
        list(0);
        closing = ")";
        break;
      case "{":
        list(0);
        closing = "}";
        break;
      case "word":
      case "redirection":
        pushedBack = true;
        simpleCommand();
        nesting -= 1;
        return;
      default:
        syntaxError();
    }
    if (closing !== null) expect(closing);
    // Redirections after a compound command.
    checkWords = checkKeywords;
    while (readToken() === "redirection") fileName();
    pushedBack = true;
    nesting -= 1;
  };

  const forLoop = (): void => {
    if (readToken() !== "word" || currentWord().quoted || !goodName.test(currentWord().value)) {
      throw new ShellSyntaxError("bad for loop variable, which /bin/sh would refuse too");
    }
    result.loopVariables.push(currentWord().value);
    checkWords = checkNewlines | checkKeywords;
    if (readToken() === "in") {
      let word = readToken();
      while (word === "word") word = readToken();
      if (lastToken !== "newline" && lastToken !== ";") syntaxError();
    } else if (lastToken !== ";") pushedBack = true;
    checkWords = checkNewlines | checkKeywords;
    expect("do");
    list(0);
  };

  const caseCommand = (): void => {
    if (readToken() !== "word") syntaxError();
    checkWords = checkNewlines | checkKeywords;
    expect("in");
    checkWords = checkNewlines | checkKeywords;
    let token = readToken();
    while (token !== "esac") {
      if (lastToken === "(") readToken();
      // dash takes each pattern as it comes, whatever the token.
      while (readToken() === "|") readToken();
      if (lastToken !== ")") syntaxError();
      list(2);
      checkWords = checkNewlines | checkKeywords;
      token = readToken();
      if (token !== "esac") {
        if (token !== ";;") syntaxError();
        checkWords = checkNewlines | checkKeywords;
        token = readToken();
      }
    }
  };

  const simpleCommand = (): void => {
    const found: { assignments: ShellWord[]; words: ShellWord[] } = { assignments: [], words: [] };
    let redirections = 0;
    let assignmentsAllowed = true;
    for (;;) {
      checkWords = 0;
      const token = readToken();
      if (token === "word") {
        if (assignmentsAllowed && currentWord().assignment) found.assignments.push(currentWord());
        else {
          found.words.push(currentWord());
          assignmentsAllowed = false;
        }
      } else if (token === "redirection") {
        redirections += 1;
        fileName();
      } else if (
        token === "(" &&
        found.words.length === 1 &&
        found.assignments.length === 0 &&
        redirections === 0
      ) {
        expect(")");
        const name = found.words[0];
        if (!name.literal || !goodName.test(name.value) || specialBuiltins.has(name.value)) {
          throw new ShellSyntaxError("bad function name, which /bin/sh would refuse too");
        }
        checkWords = checkNewlines | checkKeywords;
        command();
        return;
      } else {
        pushedBack = true;
        break;
      }
    }
    result.commands.push(found);
  };

  const fileName = (): void => {
    const redirection = lastRedirection;
    const isHeredoc = redirection?.operator === "<<" || redirection?.operator === "<<-";
    if (isHeredoc) checkWords |= checkDelimiter;
    if (readToken() !== "word") syntaxError();
    if (isHeredoc) {
      const word = currentWord();
      heredocs.push({
        delimiter: word.value,
        stripTabs: redirection?.operator === "<<-",
        expands: !word.quoted,
      });
    }
  };

  // dash's evalstring: parse a line (list(1)), run it, repeat until the end of the input.
  do {
    pushedBack = false;
    checkWords = 0;
    heredocs = [];
    list(1);
  } while (lastToken !== "end");
  return result;
}
