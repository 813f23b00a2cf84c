/**
 * Tenant regular expressions (grep patterns, allowlist argument patterns, globs once translated)
 * run on RE2's engine (re2js): matching takes time linear in the text for every pattern, so no
 * pattern can backtrack for hours the way `^(a|a)*$` does on JavaScript's engine. The syntax is
 * RE2's (docs/sandboxes.md#patterns): JavaScript's and Perl's everyday syntax, without
 * lookaround and backreferences, which no linear-time engine can offer.
 */
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

/** Compiles a tenant pattern, or says in a few words why it cannot run (without quoting it). */
export function compileUserPattern(pattern: string): CompiledPattern {
  try {
    return { ok: true, regex: RE2JS.compile(pattern) };
  } catch (error) {
    // RE2's message quotes the pattern; a pattern may hold what its author would not have logged.
    const parser = (error as Error).message.replace(/^error parsing regexp: /, "").replace(/: `[\s\S]*$/, "");
    const known = unsupported.find(([shape]) => shape.test(pattern));
    return { ok: false, reason: `${known ? known[1] : parser} (RE2 syntax, which matches in linear time)` };
  }
}
