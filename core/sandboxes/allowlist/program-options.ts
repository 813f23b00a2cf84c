/**
 * Options of ordinary programs that make them start another program or run code: `sort
 * --compress-program=sh`, `tar -I sh`, `git -c core.pager=…`, `rsync -e`, `vim -c '!…'`. When an
 * allowlist is set, an allowed program used with one of them is refused, because the program it
 * starts is not checked. The table (allowlist-option-table.ts) is per program basename; this
 * matcher reads it. Long options match any prefix (GNU getopt accepts unambiguous abbreviations:
 * treating every prefix as the option is the conservative reading), short options match anywhere
 * in a bundle (`-xI`).
 * Arguments the check cannot see (xargs input, find's {}, `$X`, `*`) count as possibly risky.
 * sed and awk program text is scanned by program-scripts.ts. ALLOWLIST.md says what is left.
 */

import { type ProgramOptions, programOptionTable, type RiskyOption } from "./allowlist-option-table.ts";
import { checkScriptProgram, isOpaque, mayBeOption, scriptLanguages } from "./program-scripts.ts";
import type { ShellWord } from "./shell-lexer.ts";

export { programOptionTable };

const byProgram = new Map(
  programOptionTable.flatMap((entry) => entry.programs.map((name) => [name, entry] as const)),
);

/** Returns why `name args` may start a program the allowlist does not check, or null. */
export function checkProgramOptions(name: string, args: ShellWord[], argsKnown: boolean): string | null {
  const entry = byProgram.get(name);
  const language = scriptLanguages.get(name);
  if (entry === undefined && language === undefined) return null;
  if (!argsKnown) {
    return `${name} would get arguments that are not known in advance (from xargs or find's {}), and some of its options start other programs; not allowed while an allowlist is set`;
  }
  if (language !== undefined) return checkScriptProgram(name, language, args);
  if (entry?.subcommands === undefined) return entry ? scanWords(name, entry, entry.options, args) : null;

  let index = 0;
  while (index < args.length && (args[index].value.startsWith("-") || mayBeOption(args[index]))) {
    const failure = scanWords(name, entry, entry.options, [args[index]]);
    if (failure !== null) return failure;
    index += entry.valuedBeforeSubcommand?.includes(args[index].value) ? 2 : 1;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return null;
  if (isOpaque(subcommand))
    return `the ${name} subcommand uses shell expansion, so what it runs cannot be checked`;
  const risky = Object.hasOwn(entry.subcommands, subcommand.value) ? entry.subcommands[subcommand.value] : [];
  const shown = `${name} ${subcommand.value}`;
  if (typeof risky === "string") return `${shown} ${risky}; not allowed while an allowlist is set`;
  if (risky.length === 0) return null;
  return scanWords(shown, {}, risky, args.slice(index + 1));
}

type Layout = Pick<ProgramOptions, "valuedShort" | "bundledFirstWord" | "singleDashLong" | "exactLong">;

/** Every word is read as a possible option: GNU programs take options after operands too. */
function scanWords(
  shown: string,
  layout: Layout,
  options: readonly RiskyOption[],
  words: ShellWord[],
): string | null {
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index];
    let value = word.value;
    const fixedStart = word.value.slice(0, word.fixedPrefixLength);
    if (isOpaque(word) && index === 0 && layout.bundledFirstWord && !fixedStart.startsWith("-")) {
      return `the first argument of ${shown} is a bundle of options and uses shell expansion, so it cannot be checked`;
    }
    if (isOpaque(word)) {
      // `--exclude=$X`: the option name is fixed, only its value is not.
      if (!word.splits && fixedStart.startsWith("--") && fixedStart.includes("=")) value = fixedStart;
      else if (mayBeOption(word)) {
        return `an argument of ${shown} uses shell expansion and could become an option that starts a program; spell it out (for file names, ./* instead of *)`;
      } else continue;
    }
    const oldStyleBundle = index === 0 && layout.bundledFirstWord === true && !value.startsWith("-");
    if (layout.singleDashLong && /^-[^-]/.test(value)) value = `-${value}`;
    const hit = matchWord(options, value, words[index + 1], {
      bundled: oldStyleBundle,
      valuedShort: layout.valuedShort,
      exactLong: layout.exactLong,
    });
    if (hit !== null) {
      const canonical =
        hit.option.spellings.find((spelling) => spelling.startsWith("--")) ?? hit.option.spellings[0];
      const written = hit.typed === canonical ? canonical : `${hit.typed} (${canonical})`;
      return `${shown} ${written} ${hit.option.effect}; not allowed while an allowlist is set`;
    }
  }
  return null;
}

interface Hit {
  option: RiskyOption;
  typed: string;
}

interface MatchLayout {
  bundled: boolean;
  valuedShort?: string;
  exactLong?: boolean;
}

function matchWord(
  options: readonly RiskyOption[],
  value: string,
  next: ShellWord | undefined,
  { bundled, valuedShort = "", exactLong = false }: MatchLayout,
): Hit | null {
  // A risky option is harmless only with a value its safeValue accepts, and a value the shell
  // fills in is never accepted.
  const isSafe = (risky: RiskyOption, attached: string | undefined): boolean => {
    if (risky.safeValue === undefined) return false;
    if (attached !== undefined) return risky.safeValue.test(attached);
    return next !== undefined && !isOpaque(next) && risky.safeValue.test(next.value);
  };
  if (value.startsWith("--") && value.length > 2) {
    const equals = value.indexOf("=");
    const typed = equals < 0 ? value : value.slice(0, equals);
    const attached = equals < 0 ? undefined : value.slice(equals + 1);
    for (const risky of options) {
      const long = risky.spellings.filter((spelling) => spelling.startsWith("--"));
      if (risky.exactNames?.includes(typed) || isSafe(risky, attached)) continue;
      const matches = (spelling: string): boolean =>
        exactLong ? spelling === typed : spelling.startsWith(typed);
      if (long.some(matches)) return { option: risky, typed };
    }
    return null;
  }
  if ((value.startsWith("-") && value.length > 1) || (bundled && value !== "")) {
    const letters = value.startsWith("-") ? value.slice(1) : value;
    for (let position = 0; position < letters.length; position += 1) {
      const letter = letters[position];
      const risky = options.find((candidate) => candidate.spellings.includes(`-${letter}`));
      const rest = letters.slice(position + 1);
      if (risky !== undefined) {
        if (!isSafe(risky, bundled ? undefined : rest || undefined))
          return { option: risky, typed: `-${letter}` };
        return null;
      }
      if (!bundled && valuedShort.includes(letter)) return null;
    }
    return null;
  }
  const plus = options.find((risky) => risky.spellings.includes("+"));
  if (plus !== undefined && value.startsWith("+") && !/^\+\d*$/.test(value))
    return { option: plus, typed: "+" };
  const operand = /^[-+]/.test(value) ? undefined : options.find((risky) => risky.spellings.includes(value));
  return operand === undefined ? null : { option: operand, typed: value };
}
