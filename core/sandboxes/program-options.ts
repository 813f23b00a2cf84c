/**
 * Options of ordinary programs that make them start another program or run code: `sort
 * --compress-program=sh`, `tar -I sh`, `git -c core.pager=…`, `rsync -e`, `vim -c '!…'`. When an
 * allowlist is set, an allowed program used with one of them is refused, because the program it
 * starts is not checked. The table is per program basename; one matcher reads it. Long options
 * match any prefix (GNU getopt accepts unambiguous abbreviations: treating every prefix as the
 * option is the conservative reading), short options match anywhere in a bundle (`-xI`).
 * Arguments the check cannot see (xargs input, find's {}, `$X`, `*`) count as possibly risky.
 * sed and awk program text is scanned by program-scripts.ts. ALLOWLIST.md says what is left.
 */

import { checkScriptProgram, isOpaque, mayBeOption, scriptLanguages } from "./program-scripts.ts";
import type { ShellWord } from "./shell-lexer.ts";

interface RiskyOption {
  /** `-I` a short option (also inside a bundle), `--use-compress-program` a long one, `+` a
   *  +command word (vim, less), a bare word an operand (`git submodule foreach`). */
  spellings: readonly string[];
  effect: string;
  /** Values that make the option harmless (ssh -o with a harmless setting). */
  safeValue?: RegExp;
  /** Complete names of harmless options that are also prefixes of a long spelling: an exact
   *  name is never read as an abbreviation (tar --checkpoint, but not --checkpoint-action). */
  exactNames?: readonly string[];
}

interface ProgramOptions {
  programs: readonly string[];
  options: readonly RiskyOption[];
  /** Short options that always take a value, in every implementation: the rest of a bundle after
   *  one is that value (`tar -cfI.tar`). Listing a letter that is a flag somewhere would hide the
   *  letters after it, so the lists are short. */
  valuedShort?: string;
  /** tar's old style: a first word without a dash is a bundle of options (`tar xIf sh a.tar`). */
  bundledFirstWord?: boolean;
  /** ld and openssl: `-plugin` and `-engine` are long options written with one dash. */
  singleDashLong?: boolean;
  /** The program takes no abbreviations: only the full name of a long option matches. */
  exactLong?: boolean;
  /** git: the options before the subcommand that take the next word as their value. */
  valuedBeforeSubcommand?: readonly string[];
  /** Risky options per subcommand; a string refuses the subcommand whole, with that effect. */
  subcommands?: Readonly<Record<string, readonly RiskyOption[] | string>>;
}

const option = (effect: string, ...spellings: string[]): RiskyOption => ({ effect, spellings });
const starts = "starts another program";
const configures =
  "sets configuration, which can name programs to run (core.pager, alias.*, core.fsmonitor, …)";
const readsConfig = "reads a configuration file that can name programs to run";
const editorCommands = "runs editor commands, which can start programs";
const loadsPlugin = "loads a plugin library, which can run anything";
const unsafeRoff = "enables unsafe mode, in which documents run shell commands (.sy, .pso, pic's sh)";
// binutils under their plain names, gcc's wrappers and the target-prefixed names Debian installs.
const withTargetPrefix = (...names: string[]): string[] => [
  ...names,
  ...names.map((name) => `x86_64-linux-gnu-${name}`),
];
const sshSafeSettings =
  /^(StrictHostKeyChecking|UserKnownHostsFile|GlobalKnownHostsFile|BatchMode|ConnectTimeout|ConnectionAttempts|LogLevel|ServerAliveInterval|ServerAliveCountMax|TCPKeepAlive|IdentitiesOnly|IdentityFile|Port|User|Compression|PasswordAuthentication|PubkeyAuthentication|PreferredAuthentications|HostKeyAlias|CheckHostIP|HashKnownHosts|UpdateHostKeys|AddKeysToAgent)\s*(=\s*|\s+)[^\s=]+$/i;
const sshOptions = (...extra: RiskyOption[]): RiskyOption[] => [
  {
    effect: "sets an option that can start a program (ProxyCommand, LocalCommand, Match exec, …)",
    spellings: ["-o"],
    safeValue: sshSafeSettings,
  },
  option(readsConfig, "-F"),
  ...extra,
];

// Each RiskyOption is one option under all its spellings; its effect is the reason given.
export const programOptionTable: readonly ProgramOptions[] = [
  { programs: ["sort"], options: [option(starts, "--compress-program")] },
  { programs: ["split"], options: [option(starts, "--filter")] },
  {
    programs: ["tar", "gtar", "bsdtar"],
    bundledFirstWord: true,
    valuedShort: "fCTX",
    options: [
      option(starts, "-I", "--use-compress-program"),
      option(starts, "--to-command"),
      option(starts, "-F", "--info-script", "--new-volume-script"),
      { ...option(starts, "--checkpoint-action"), exactNames: ["--checkpoint"] },
      option(starts, "--rsh-command"),
      option(starts, "--rmt-command"),
    ],
  },
  { programs: ["rsync"], options: [option(starts, "-e", "--rsh"), option(starts, "--rsync-path")] },
  {
    programs: ["git"],
    options: [
      option(configures, "-c"),
      option(configures, "--config-env"),
      option("chooses where git finds the programs it runs", "--exec-path"),
    ],
    valuedBeforeSubcommand: [
      "-C",
      "-c",
      "--git-dir",
      "--work-tree",
      "--namespace",
      "--super-prefix",
      "--config-env",
      "--attr-source",
    ],
    subcommands: {
      clone: [
        option(starts, "-u", "--upload-pack"),
        option(configures, "-c", "--config"),
        option("installs hooks from a directory, which run as programs", "--template"),
      ],
      fetch: [option(starts, "--upload-pack")],
      pull: [option(starts, "--upload-pack")],
      "ls-remote": [option(starts, "--upload-pack", "--exec")],
      push: [option(starts, "--receive-pack", "--exec")],
      "send-pack": [option(starts, "--receive-pack", "--exec")],
      archive: [option(starts, "--exec")],
      rebase: [option("runs a shell command after each commit", "-x", "--exec")],
      grep: [option("starts a pager program", "-O", "--open-files-in-pager")],
      help: [option("starts a web browser", "-w", "--web")],
      submodule: [option("runs a shell command in each submodule", "foreach")],
      bisect: [option("runs a command to test each commit", "run")],
      "send-email": ["--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"].map((name) =>
        option(starts, name),
      ),
      daemon: [option(starts, "--access-hook")],
      difftool: "starts an external diff tool",
      mergetool: "starts an external merge tool",
      "filter-branch": "runs shell commands as filters",
      instaweb: "starts a web server and a browser",
    },
  },
  {
    programs: ["man"],
    options: [
      option("starts a pager program", "-P", "--pager"),
      option("starts a web browser", "-H", "--html"),
      option(starts, "-X", "--gxditview"),
      option(readsConfig, "-C", "--config-file"),
    ],
  },
  {
    programs: ["less"],
    options: [
      option("runs a less command at start, and less commands can start programs", "+"),
      ...[["-k", "--lesskey-file"], ["--lesskey-src"], ["--lesskey-content"]].map((spellings) =>
        option("reads key bindings and settings (such as LESSOPEN) that can start programs", ...spellings),
      ),
    ],
  },
  {
    programs: [
      "vim",
      "vi",
      "view",
      "vimdiff",
      "ex",
      "rvim",
      "rview",
      "nvim",
      "gvim",
      "vim.basic",
      "vim.tiny",
      "vim.nox",
    ],
    options: [
      option(editorCommands, "+"),
      option(editorCommands, "-c"),
      option(editorCommands, "--cmd"),
      ...["-S", "-u", "-U", "-s"].map((letter) => option("runs an editor script file", letter)),
      option("runs a Lua script (nvim)", "-l"),
    ],
  },
  {
    programs: ["zip"],
    options: [
      option("tests the archive with another program (-TT names it)", "-T"),
      option(starts, "--unzip-command"),
    ],
  },
  { programs: ["ssh"], options: sshOptions(option("loads a PKCS#11 library, which can run anything", "-I")) },
  { programs: ["scp"], options: sshOptions(option(starts, "-S")) },
  {
    programs: ["sftp"],
    options: sshOptions(
      option(starts, "-S"),
      option(starts, "-D"),
      option("runs batch commands, which can start programs", "-b"),
    ),
  },
  {
    programs: ["curl"],
    options: [option(readsConfig, "-K", "--config"), option("loads a crypto engine library", "--engine")],
  },
  {
    programs: ["wget"],
    options: [
      option("runs wgetrc commands, which can name programs to run", "-e", "--execute"),
      option(readsConfig, "--config"),
      option(starts, "--use-askpass"),
    ],
  },
  // Found in the review of the base image's binaries (ALLOWLIST.md).
  { programs: ["install", "ginstall"], options: [option(starts, "--strip-program")] },
  {
    programs: ["sdiff"],
    options: [
      option(starts, "--diff-program"),
      option("merges interactively, and its e command starts an editor", "-o", "--output"),
    ],
  },
  { programs: ["diff3"], options: [option(starts, "--diff-program")] },
  {
    programs: ["groff"],
    options: [
      option(unsafeRoff, "-U"),
      option("sends the output to a print spooler, run through the shell with -L's arguments", "-l", "-L"),
    ],
  },
  { programs: ["troff", "pic", "gpic"], options: [option(unsafeRoff, "-U")] },
  {
    programs: withTargetPrefix(
      "ar",
      "nm",
      "ranlib",
      "gcc-ar",
      "gcc-nm",
      "gcc-ranlib",
      "gcc-ar-12",
      "gcc-nm-12",
      "gcc-ranlib-12",
    ),
    options: [option(loadsPlugin, "--plugin")],
  },
  {
    programs: withTargetPrefix("ld", "ld.bfd", "ld.gold", "gold"),
    singleDashLong: true,
    exactLong: true,
    options: [option(loadsPlugin, "--plugin")],
  },
  { programs: ["dpkg-architecture"], options: [option(starts, "-c", "--command")] },
  {
    programs: ["gpg", "gpg2", "gpgsm"],
    options: [
      option(starts, "--photo-viewer"),
      option(starts, "--agent-program"),
      option(starts, "--dirmngr-program"),
      option("chooses where gpg finds the programs it runs", "--exec-path"),
      option(readsConfig, "--options"),
    ],
  },
  {
    programs: ["gpg-agent"],
    options: [
      option(starts, "--pinentry-program"),
      option(starts, "--scdaemon-program"),
      option(readsConfig, "--options"),
    ],
  },
  {
    programs: ["gpg-connect-agent"],
    options: [
      option(starts, "-E", "--exec"),
      option(starts, "--agent-program"),
      option(starts, "--dirmngr-program"),
    ],
  },
  {
    programs: ["openssl"],
    singleDashLong: true,
    exactLong: true,
    options: [
      option(
        "loads an engine library, which can run anything",
        "--engine",
        "--keygen_engine",
        "--ssl_client_engine",
        "engine",
      ),
      option("loads a provider library, which can run anything", "--provider", "--provider-path"),
      option("reads a configuration file that can load libraries", "--config"),
    ],
  },
  {
    programs: ["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"],
    options: [
      option(starts, "-e", "--exec"),
      option(starts, "-c", "--sh-exec"),
      option(starts, "--lua-exec"),
    ],
  },
];

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
