/**
 * Tenant regular expressions (grep patterns, allowlist argument patterns, globs once translated)
 * run on RE2's engine (re2js): matching takes time linear in the text for every pattern, so no
 * pattern can backtrack for hours the way `^(a|a)*$` does on JavaScript's engine. The syntax is
 * RE2's (docs/sandboxes.md#patterns): JavaScript's and Perl's everyday syntax, without
 * lookaround and backreferences, which no linear-time engine can offer.
 */
import { LRUCache } from "lru-cache";
import { RE2JS } from "re2js";

export interface LinearRegex {
  /** True when the pattern matches anywhere in the text (search, not whole-text, semantics). */
  test(text: string): boolean;
}

export type CompiledPattern = { ok: true; regex: LinearRegex } | { ok: false; reason: string };

// What RE2 leaves out, named for the user instead of RE2's parser message alone.
const unsupported: Array<[RegExp, string]> = [
  [/\(\?<?[=!]/, "lookahead and lookbehind are not supported"],
  [/\\[1-9]|\\k</, "backreferences are not supported"],
];

// A grep's pattern is compiled for each batch it matches, an allowlist's for every exec, and a
// 1000-character pattern takes up to 150 ms to compile: the last few are kept. Few, since each
// one's lazy DFA may grow to 8 MiB.
const compiled = new LRUCache<string, CompiledPattern>({ max: 16 });

/** Compiles a tenant pattern, or says in a few words why it cannot run (without quoting it). */
export function compileUserPattern(pattern: string): CompiledPattern {
  let result = compiled.get(pattern);
  if (result === undefined) {
    result = compile(pattern);
    compiled.set(pattern, result);
  }
  return result;
}

function compile(pattern: string): CompiledPattern {
  try {
    return { ok: true, regex: RE2JS.compile(pattern) };
  } catch (error) {
    // RE2's message quotes the pattern; a pattern may hold what its author would not have logged.
    const parser = (error as Error).message.replace(/^error parsing regexp: /, "").replace(/: `[\s\S]*$/, "");
    const known = unsupported.find(([shape]) => shape.test(pattern));
    return { ok: false, reason: `${known ? known[1] : parser} (RE2 syntax, which matches in linear time)` };
  }
}
