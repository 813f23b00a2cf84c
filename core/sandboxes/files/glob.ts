/**
 * Glob patterns for the glob and grep file operations (docs/sandboxes.md#patterns): `*` and `?`
 * within one path segment, `**` as a whole segment for any depth (including none), `[abc]` /
 * `[!abc]` classes (POSIX `[:alpha:]` too), `{a,b}` alternatives, the extglobs `@(a|b)`,
 * `?(…)`, `+(…)`, `*(…)`, `\` escapes, and a leading `!` (or a whole-pattern `!(…)`) that negates.
 * Dotfiles match like any other name. A glob is translated to RE2 syntax and matched by the
 * linear-time engine: file names are the sandbox's to choose, so `*a*a*a*a*b` against a long
 * name must cost no more than reading it. An unbalanced bracket, brace or parenthesis is a
 * SyntaxError, as is a `!(…)` inside a pattern (its complement has no RE2 form).
 */
import { compileUserPattern } from "./linear-regex.ts";

/** Tests a `/`-separated relative path against a glob. Throws SyntaxError on bad syntax. */
export function createGlobMatcher(glob: string): (path: string) => boolean {
  const negated = glob.startsWith("!") && !glob.startsWith("!(");
  const body = negated ? glob.slice(1) : glob;
  const whole = wholeNegation(body);
  const source = whole === null ? translate(body) : translate(whole);
  const compiled = compileUserPattern(`^(?:${source})$`);
  if (!compiled.ok) throw new SyntaxError(`the glob translates to no valid pattern: ${compiled.reason}`);
  const invert = negated !== (whole !== null);
  return (path) => compiled.regex.test(path) !== invert;
}

/**
 * A filter for grep's `glob` option: a glob without `/` matches the file name at any depth
 * (`*.py`), one with `/` matches the path relative to the search root (`src/**\/*.ts`).
 */
export function createGlobFilter(glob: string): (relativePath: string) => boolean {
  const matches = createGlobMatcher(glob);
  if (glob.includes("/")) return matches;
  return (relativePath) => matches(relativePath.slice(relativePath.lastIndexOf("/") + 1));
}

/** The inside of a glob that is one `!(…)` from start to end, else null. */
function wholeNegation(glob: string): string | null {
  if (!glob.startsWith("!(")) return null;
  const end = closingIndex(glob, 1, "(", ")");
  return end === glob.length - 1 ? glob.slice(2, -1) : null;
}

const regexSpecial = /[\\^$.|?*+()[\]{}]/;
const literal = (character: string): string => (regexSpecial.test(character) ? `\\${character}` : character);

/** Translates a glob (or one alternative of a brace or extglob) to RE2 syntax. */
function translate(glob: string): string {
  let out = "";
  let index = 0;
  while (index < glob.length) {
    const character = glob[index];
    const next = glob[index + 1];
    if (character === "\\") {
      out += literal(next ?? "\\");
      index += 2;
    } else if (character === "*" && next === "*") {
      const segmentStart = index === 0 || glob[index - 1] === "/";
      const after = glob[index + 2];
      if (segmentStart && after === "/") {
        out += "(?:[^/]+/)*";
        index += 3;
      } else if (segmentStart && after === undefined) {
        // `src/**` matches src itself and everything below it; a lone `**` matches any path.
        out = index === 0 ? ".*" : `${out.slice(0, -1)}(?:/.*)?`;
        index += 2;
      } else {
        out += "[^/]*";
        index += 2;
      }
    } else if ("@?+*!".includes(character) && next === "(") {
      const end = closingIndex(glob, index + 1, "(", ")");
      if (character === "!") throw new SyntaxError("!(…) is only supported as the whole pattern");
      const body = alternatives(glob.slice(index + 2, end), "|");
      out += `(?:${body})${character === "@" ? "" : character}`;
      index = end + 1;
    } else if (character === "*") {
      out += "[^/]*";
      index += 1;
    } else if (character === "?") {
      out += "[^/]";
      index += 1;
    } else if (character === "[") {
      const end = classEnd(glob, index);
      out += translateClass(glob.slice(index + 1, end));
      index = end + 1;
    } else if (character === "{") {
      const end = closingIndex(glob, index, "{", "}");
      const inside = glob.slice(index + 1, end);
      out +=
        topLevelSplit(inside, ",").length > 1
          ? `(?:${alternatives(inside, ",")})`
          : literal("{") + translate(inside) + literal("}");
      index = end + 1;
    } else {
      out += literal(character);
      index += 1;
    }
  }
  return out;
}

function alternatives(inside: string, separator: string): string {
  return topLevelSplit(inside, separator).map(translate).join("|");
}

/** Splits at separators outside nested brackets, braces and parentheses. */
function topLevelSplit(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === "\\") index += 1;
    else if (character === "[") index = classEnd(text, index);
    else if (character === "{" || character === "(") depth += 1;
    else if (character === "}" || character === ")") depth -= 1;
    else if (character === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The index of the bracket that closes the one at `open`, skipping escapes and classes. */
function closingIndex(text: string, open: number, opening: string, closing: string): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const character = text[index];
    if (character === "\\") index += 1;
    else if (character === "[") index = classEnd(text, index);
    else if (character === opening) depth += 1;
    else if (character === closing && --depth === 0) return index;
  }
  throw new SyntaxError(`unbalanced ${opening} in the glob`);
}

/** The index of the `]` that closes the class opened at `open`. */
function classEnd(text: string, open: number): number {
  let index = open + 1;
  if (text[index] === "!" || text[index] === "^") index += 1;
  if (text[index] === "]") index += 1;
  while (index < text.length && text[index] !== "]") {
    if (text[index] === "\\") index += 1;
    else if (text.startsWith("[:", index)) {
      const close = text.indexOf(":]", index + 2);
      if (close > 0) index = close + 1;
    }
    index += 1;
  }
  if (index >= text.length) throw new SyntaxError("unbalanced [ in the glob");
  return index;
}

/** A bracket class in RE2 syntax; a negated class never matches `/` either. */
function translateClass(inside: string): string {
  const negated = inside.startsWith("!") || inside.startsWith("^");
  let body = negated ? inside.slice(1) : inside;
  let out = "";
  while (body.length > 0) {
    const posix = /^\[:[a-z]+:\]/.exec(body);
    if (posix) {
      out += posix[0];
      body = body.slice(posix[0].length);
      continue;
    }
    let character = body[0];
    if (character === "\\" && body.length > 1) {
      character = body[1];
      body = body.slice(1);
    }
    // A `-` between two characters is a range, as in RE2; every other non-word character is escaped.
    out += /[\w-]/.test(character) || character.charCodeAt(0) > 127 ? character : `\\${character}`;
    body = body.slice(1);
  }
  return negated ? `[^/${out}]` : `[${out}]`;
}
