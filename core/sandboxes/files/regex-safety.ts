/**
 * User regular expressions (allowlist argument patterns, grep) run in the control plane's own
 * process, where one catastrophic backtracking match would stall every request. JavaScript
 * cannot interrupt a running match, so the classic cause, a repeated group that itself repeats
 * (`(a+)+`, `(a*)*`, `(\w+\s?)*`), is refused up front. This is a heuristic: it does not catch
 * every slow pattern (overlapping alternatives such as `(a|a)*` pass), but it removes the common
 * ones.
 */

interface GroupState {
  repeats: boolean;
}

/** True when a quantified group contains a quantified item (star height above one). */
export function hasNestedQuantifier(pattern: string): boolean {
  const stack: GroupState[] = [{ repeats: false }];
  let index = 0;
  let lastClosedGroupRepeats = false;
  while (index < pattern.length) {
    const character = pattern[index];
    if (character === "\\") {
      index += 2;
      lastClosedGroupRepeats = false;
      continue;
    }
    if (character === "[") {
      index = skipCharacterClass(pattern, index);
      lastClosedGroupRepeats = false;
      continue;
    }
    if (character === "(") {
      stack.push({ repeats: false });
      index += 1;
      if (pattern[index] === "?") index += 1; // (?:, (?=, (?<name> …: the modifier is not a quantifier
      lastClosedGroupRepeats = false;
      continue;
    }
    if (character === ")") {
      const closed = stack.length > 1 ? stack.pop()! : { repeats: false };
      lastClosedGroupRepeats = closed.repeats;
      if (closed.repeats) stack[stack.length - 1].repeats = true;
      index += 1;
      continue;
    }
    const quantifierLength = quantifierAt(pattern, index);
    if (quantifierLength > 0) {
      if (lastClosedGroupRepeats) return true;
      stack[stack.length - 1].repeats = true;
      index += quantifierLength;
      if (pattern[index] === "?" || pattern[index] === "+") index += 1; // lazy or possessive suffix
      lastClosedGroupRepeats = false;
      continue;
    }
    lastClosedGroupRepeats = false;
    index += 1;
  }
  return false;
}

/** Length of the repeating quantifier at index (`*`, `+`, `{n,}`, `{n,m}`), else 0. `?` repeats nothing. */
function quantifierAt(pattern: string, index: number): number {
  const character = pattern[index];
  if (character === "*" || character === "+") return 1;
  if (character === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
    if (match === null) return 0;
    const repeatsMoreThanOnce =
      match[2] !== undefined ? match[3] === "" || Number(match[3]) > 1 : Number(match[1]) > 1;
    return repeatsMoreThanOnce ? match[0].length : 0;
  }
  return 0;
}

function skipCharacterClass(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === "^") index += 1;
  if (pattern[index] === "]") index += 1;
  while (index < pattern.length && pattern[index] !== "]") {
    index += pattern[index] === "\\" ? 2 : 1;
  }
  return index + 1;
}

export type CompiledPattern = { ok: true; regex: RegExp } | { ok: false; reason: string };

/** Compiles a user pattern, refusing invalid syntax and nested repetition. */
export function compileUserPattern(pattern: string): CompiledPattern {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    return { ok: false, reason: `invalid regular expression: ${(error as Error).message}` };
  }
  if (hasNestedQuantifier(pattern)) {
    return {
      ok: false,
      reason: "the pattern repeats a group that itself repeats (like (a+)+), which can take exponential time",
    };
  }
  return { ok: true, regex };
}
