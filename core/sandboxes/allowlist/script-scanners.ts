/**
 * Scanners for sed scripts and awk programs: each says what in the program text can start
 * another program (sed's `e` command and `s///e` flag; awk's system(), pipes, gawk's `@`), or
 * that the text cannot be parsed, which the allowlist refuses too. program-scripts.ts finds the
 * program text among the arguments.
 */

const sedWithoutArgument = new Set("=dDgGhHnNpPxzF");

/** Walks a GNU sed script command by command (the grammar of sed's compile.c). */
export function scanSed(script: string): string | null {
  let index = 0;
  const blanks = (): void => {
    while (script[index] === " " || script[index] === "\t") index += 1;
  };
  const digits = (): void => {
    while (/[0-9]/.test(script[index] ?? "")) index += 1;
  };
  // Regexes and s/y parts end at the unescaped delimiter; an unescaped newline is an error.
  const delimited = (delimiter: string): boolean => {
    while (index < script.length) {
      const character = script[index];
      index += character === "\\" ? 2 : 1;
      if (character === delimiter) return true;
      if (character === "\n") return false;
    }
    return false;
  };
  const toLineEnd = (escapes: boolean): void => {
    while (index < script.length && script[index] !== "\n")
      index += escapes && script[index] === "\\" ? 2 : 1;
  };
  const label = (): void => {
    blanks();
    while (index < script.length && !/[\s;]/.test(script[index])) index += 1;
  };
  const address = (): boolean => {
    const character = script[index];
    if (/[0-9]/.test(character ?? "")) {
      digits();
      if (script[index] === "~") {
        index += 1;
        digits();
      }
    } else if (character === "$") index += 1;
    else if (character === "/" || character === "\\") {
      const delimiter = character === "/" ? "/" : script[index + 1];
      index += character === "/" ? 1 : 2;
      if (delimiter === undefined || delimiter === "\n" || !delimited(delimiter)) return false;
      while (script[index] === "I" || script[index] === "M") index += 1;
    }
    return true;
  };
  const unparsable = "has a script that cannot be checked";
  while (index < script.length) {
    if (/[\s;]/.test(script[index])) {
      index += 1;
      continue;
    }
    if (!address()) return unparsable;
    blanks();
    if (script[index] === ",") {
      index += 1;
      blanks();
      if (script[index] === "+" || script[index] === "~") {
        index += 1;
        digits();
      } else if (!address()) return unparsable;
    }
    blanks();
    while (script[index] === "!") {
      index += 1;
      blanks();
    }
    const command = script[index];
    index += 1;
    if (command === "e") return "has the e command, which runs a shell command";
    if (command === "{" || command === "}" || sedWithoutArgument.has(command)) continue;
    if (command === "#") toLineEnd(false);
    else if (command === ":" || command === "b" || command === "t" || command === "T" || command === "v")
      label();
    else if (command === "r" || command === "R" || command === "w" || command === "W") toLineEnd(false);
    else if (command === "a" || command === "i" || command === "c") {
      blanks();
      if (script[index] === "\\") index += 2;
      toLineEnd(true);
    } else if (command === "l" || command === "L" || command === "q" || command === "Q") {
      blanks();
      digits();
    } else if (command === "s" || command === "y") {
      const delimiter = script[index];
      index += 1;
      if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return unparsable;
      if (!delimited(delimiter) || !delimited(delimiter)) return unparsable;
      if (command === "s") {
        while (/[gpiImMe0-9w]/.test(script[index] ?? "")) {
          if (script[index] === "e")
            return "has the e flag of s, which runs the pattern space as a shell command";
          if (script[index] === "w") {
            toLineEnd(false);
            break;
          }
          index += 1;
        }
      }
    } else return unparsable;
  }
  return null;
}

type AwkMode = "code" | "string" | "regex" | "comment";

/**
 * awk's `/` starts a regex where an operand is expected and divides after one; only the awk
 * parser knows which. The scan follows both readings where the previous character leaves it
 * open (after a name, a number, `)` or `]`), so text is skipped as a string, regex or comment
 * only when every reading agrees, and a feature visible in any reading is refused.
 */
export function scanAwk(program: string): string | null {
  const reached: Array<Set<AwkMode>> = Array.from({ length: program.length + 2 }, () => new Set());
  reached[0].add("code");
  for (let index = 0; index < program.length; index += 1) {
    for (const mode of reached[index]) {
      const found = stepAwk(program, index, mode, (next, nextMode) => reached[next]?.add(nextMode));
      if (found !== null) return found;
    }
  }
  return null;
}

const awkRegexAfter = /[(,{;~!&|=?:[*%^<>]/;

function awkFeature(program: string, index: number): string | null {
  const character = program[index];
  if (character === "|" && program[index + 1] !== "|") return "pipes to or from a command with |";
  if (character === "@") return "uses @ (gawk @load, @include or an indirect call), which can run anything";
  const atWordStart = index === 0 || !/\w/.test(program[index - 1]);
  if (atWordStart && /^(system|extension)(?!\w)/.test(program.slice(index, index + 10))) {
    return "calls system(), which runs a shell command";
  }
  return null;
}

function stepAwk(
  program: string,
  index: number,
  mode: AwkMode,
  reach: (next: number, mode: AwkMode) => void,
): string | null {
  const character = program[index];
  if (mode === "comment") {
    reach(index + 1, character === "\n" ? "code" : "comment");
    return null;
  }
  if (mode === "string" || mode === "regex") {
    const closing = mode === "string" ? '"' : "/";
    // A newline inside a string or regex is a syntax error in awk: that reading ends here.
    if (character === "\\") reach(index + 2, mode);
    else if (character !== "\n") reach(index + 1, character === closing ? "code" : mode);
    return null;
  }
  const feature = awkFeature(program, index);
  if (feature !== null) return `program ${feature}`;
  if (character === "|" && program[index + 1] === "|") reach(index + 2, "code");
  else if (character === '"') reach(index + 1, "string");
  else if (character === "#") reach(index + 1, "comment");
  else if (character === "/") {
    let previous = index - 1;
    while (previous >= 0 && /\s/.test(program[previous])) previous -= 1;
    const operandExpected = previous < 0 || awkRegexAfter.test(program[previous]);
    reach(index + 1, "regex");
    if (!operandExpected) reach(index + 1, "code");
  } else reach(index + 1, "code");
  return null;
}
