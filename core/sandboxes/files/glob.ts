/**
 * Glob patterns for the glob and grep file operations: `*` and `?` within one path segment,
 * `**` as a whole segment for any depth (including none), `[abc]` / `[!abc]` classes and
 * `{a,b}` alternatives. Dotfiles are matched like any other name.
 */

const regexSpecial = /[.+^$()|\\/]/;

/** Compiles a glob into an anchored RegExp over a `/`-separated relative path. Throws on bad syntax. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let braceDepth = 0;
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index];
    if (character === "*") {
      const isDouble = glob[index + 1] === "*";
      const atSegmentStart = index === 0 || glob[index - 1] === "/";
      if (isDouble && atSegmentStart && glob[index + 2] === "/") {
        source += "(?:[^/]*/)*";
        index += 2;
      } else if (isDouble && atSegmentStart && index + 2 === glob.length) {
        source += ".*";
        index += 1;
      } else {
        source += "[^/]*";
        if (isDouble) index += 1;
      }
    } else if (character === "?") {
      source += "[^/]";
    } else if (character === "[") {
      const close = glob.indexOf("]", index + 2);
      if (close < 0) {
        source += "\\[";
        continue;
      }
      let body = glob.slice(index + 1, close);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      source += `[${body.replaceAll("\\", "\\\\")}]`;
      index = close;
    } else if (character === "{") {
      braceDepth += 1;
      source += "(?:";
    } else if (character === "," && braceDepth > 0) {
      source += "|";
    } else if (character === "}" && braceDepth > 0) {
      braceDepth -= 1;
      source += ")";
    } else if (character === "\\" && index + 1 < glob.length) {
      index += 1;
      source += escapeCharacter(glob[index]);
    } else {
      source += escapeCharacter(character);
    }
  }
  if (braceDepth > 0) throw new SyntaxError("unclosed { in glob");
  return new RegExp(`^${source}$`);
}

function escapeCharacter(character: string): string {
  return regexSpecial.test(character) || "[]{}*?".includes(character) ? `\\${character}` : character;
}

/**
 * A filter for grep's `glob` option: a glob without `/` matches the file name at any depth
 * (`*.py`), one with `/` matches the path relative to the search root (`src/**\/*.ts`).
 */
export function createGlobFilter(glob: string): (relativePath: string) => boolean {
  const regex = globToRegExp(glob);
  if (glob.includes("/")) return (relativePath) => regex.test(relativePath);
  return (relativePath) => regex.test(relativePath.slice(relativePath.lastIndexOf("/") + 1));
}
