/**
 * Glob patterns for the glob and grep file operations, matched by picomatch: `*` and `?` within
 * one path segment, `**` as a whole segment for any depth (including none), `[abc]` / `[!abc]`
 * classes, `{a,b}` alternatives, bash's extglobs and `\` escapes. Dotfiles are matched like any
 * other name; an unbalanced bracket or brace throws (a SyntaxError) instead of matching literally.
 */
import picomatch from "picomatch/posix.js";

// picomatch's posix entry: the same matching on every host (no Windows separators or detection);
// `posix` is its option for POSIX bracket classes, which `[!abc]` needs.
const options = { dot: true, posix: true, strictBrackets: true };

/** Tests a `/`-separated relative path against a glob. Throws on bad syntax. */
export function createGlobMatcher(glob: string): (path: string) => boolean {
  return picomatch(glob, options);
}

/**
 * A filter for grep's `glob` option: a glob without `/` matches the file name at any depth
 * (`*.py`), one with `/` matches the path relative to the search root (`src/**\/*.ts`).
 */
export function createGlobFilter(glob: string): (relativePath: string) => boolean {
  // picomatch's `basename` option applies to every glob, so the slash rule stays here.
  return picomatch(glob, { ...options, basename: !glob.includes("/") });
}
